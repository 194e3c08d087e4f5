/** An entry of a lease record as far as liveness goes: its owner token and its heartbeat counter. */
export interface Beating {
  readonly owner: string;
  readonly beat: number;
}

/**
 * Judges the liveness of lease entries without comparing clocks across hosts: an entry is dead once this instance has
 * seen the same `beat` of the same owner for `leaseMs` on its own clock (monotonic by default). An entry seen for the
 * first time counts as just renewed, so a new observer waits up to one lease before it takes over. Remembers, per key,
 * only the entries of the record last read (and at most `maxKeys` keys, the oldest forgotten first).
 */
export class LivenessWatch {
  private readonly seen = new Map<string, Map<string, { beat: number; since: number }>>();

  constructor(
    private readonly leaseMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** Records what the record of `key` holds now; returns whether an entry of it is alive. */
  observe(key: string, entries: ReadonlyArray<Beating | null>, now: number): (entry: Beating) => boolean {
    const before = this.seen.get(key);
    const after = new Map<string, { beat: number; since: number }>();
    for (const entry of entries) {
      if (!entry) continue;
      const known = before?.get(entry.owner);
      after.set(entry.owner, known && known.beat === entry.beat ? known : { beat: entry.beat, since: now });
    }
    this.seen.delete(key);
    if (after.size > 0) this.seen.set(key, after);
    while (this.seen.size > this.maxKeys) this.seen.delete(this.seen.keys().next().value as string);
    return (entry) => {
      const seen = after.get(entry.owner);
      return seen === undefined || now - seen.since <= this.leaseMs;
    };
  }
}
