import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { CasCells } from './cas-cells';
import { LivenessWatch } from './liveness-watch';
import type { AcquireRequest, HeldThread, ThreadLeaseOptions, ThreadLeases } from './thread-leases';

/**
 * The ThreadLeases protocol over compare-and-swap cells (the KV bucket `thread-leases` in production, memory in tests).
 *
 * One record per thread: the `holder` (goal, owner token, heartbeat counter) and the `waiting` goals with their GOALS
 * stream sequence and heartbeat counter. A goal may take the thread when there is no live holder and no live waiter with
 * a smaller stream sequence. Liveness needs no server-side TTLs (NATS 2.9 has no per-key TTL) and no shared clock: every
 * entry's `beat` is bumped at each renewal, and an instance counts an entry dead once it has seen the same beat for
 * `leaseMs` on its own monotonic clock (`LivenessWatch`). Clocks of different hosts are never compared.
 */
const Entry = z.object({ goalId: z.string(), owner: z.string(), seq: z.number(), beat: z.number() });
const LeaseRecord = z.object({ holder: Entry.nullable(), waiting: z.array(Entry) });
type LeaseRecord = z.infer<typeof LeaseRecord>;
/** A record as this instance wrote it, at the revision the write got. */
interface Written {
  readonly record: LeaseRecord;
  readonly revision: number;
}

export class CasThreadLeases implements ThreadLeases {
  private readonly now: () => number;
  private readonly pollMs: number;
  /** How often a holder renews its lease and a waiter refreshes its place (a fifth of the lease: 4/5 of a stall survived). */
  private readonly renewEvery: number;
  private readonly watch: LivenessWatch;

  constructor(
    private readonly cells: CasCells,
    private readonly keyOf: (threadId: string) => string,
    private readonly options: ThreadLeaseOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.pollMs = options.pollMs ?? Math.max(100, Math.floor(options.leaseMs / 10));
    this.renewEvery = Math.max(100, Math.floor(options.leaseMs / 5));
    this.watch = new LivenessWatch(options.leaseMs);
  }

  /**
   * A goal that stops waiting because its signal aborted (its instance shuts down, the goal was cancelled) leaves the
   * queue at once, so the goals behind it need not wait for its entry to expire. Best effort: a failure leaves the
   * entry to expire. Returns null (no thread held).
   */
  private async leaveQueue(key: string, owner: string): Promise<null> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const read = await this.read(key).catch(() => null);
      if (!read || !read.record.waiting.some((w) => w.owner === owner)) return null;
      const next = { ...read.record, waiting: read.record.waiting.filter((w) => w.owner !== owner) };
      if ((await this.write(key, next, read.revision).catch(() => 0)) !== null) return null;
    }
    return null;
  }

  /**
   * Waits (bounded) for the thread; null when `maxWaitMs` passed or `signal` aborted first. A holder of the same goal is
   * an earlier delivery of it: JetStream delivers a goal again only once that delivery stopped being kept alive for the
   * GOALS ack wait (judged by the server alone), so it is taken over at once; if it was merely stalled, it learns it at
   * its next renewal (`lost`).
   */
  async acquire(req: AcquireRequest): Promise<HeldThread | null> {
    const owner = `${req.goalId}:${randomBytes(6).toString('hex')}`;
    const key = this.keyOf(req.threadId);
    const giveUpAt = this.now() + req.maxWaitMs;
    let beat = 0;
    let beatAt = -Infinity;
    for (;;) {
      if (req.signal?.aborted) return this.leaveQueue(key, owner);
      const { record, revision } = await this.read(key);
      const now = this.now();
      const live = this.prune(key, record, now, req.goalId);
      const ahead = live.waiting.some((w) => w.seq < req.seq && w.goalId !== req.goalId);
      const others = live.waiting.filter((w) => w.owner !== owner && w.goalId !== req.goalId);
      if (live.holder === null && !ahead) {
        const next = { holder: { goalId: req.goalId, owner, seq: req.seq, beat: beat + 1 }, waiting: others };
        const written = await this.write(key, next, revision);
        if (written !== null) return this.held(key, owner, { record: next, revision: written });
        continue; // someone else changed it first: look again
      }
      if (now >= giveUpAt) {
        // Keep the place in the queue: the goal comes back after a short delay and the entry expires otherwise.
        return null;
      }
      const mine = live.waiting.find((w) => w.owner === owner);
      if (!mine || now - beatAt > this.renewEvery || live !== record) {
        const entry = { goalId: req.goalId, owner, seq: req.seq, beat: beat + 1 };
        const next = { holder: live.holder, waiting: [...others, entry].sort((a, b) => a.seq - b.seq) };
        if ((await this.write(key, next, revision)) === null) continue;
        beat += 1;
        beatAt = now;
      }
      req.onWait?.();
      await delay(Math.min(this.pollMs, Math.max(0, giveUpAt - now)), req.signal);
    }
  }

  /**
   * The holder's side: renewals and the release. Each first tries a compare-and-swap on the record this holder last
   * wrote (one round trip instead of a read and a write): it succeeds only while nobody else wrote since, so the
   * record is still exactly that one. When somebody did (a waiter joined, another delivery took the thread over) it
   * falls back to reading the record, which is where a lost lease is seen.
   */
  private held(key: string, owner: string, written: Written): HeldThread {
    const lost = new AbortController();
    let released = false;
    let last: Written | undefined = written;
    /**
     * `change` applied to the last written record first, then to up to `reads` fresh reads (while `going()`); false when
     * the lease is not ours. The swap on the last written record is a try of its own: when a waiter's write made it
     * fail, the holder still has all its read-and-write tries (as before that swap) against further waiters' writes.
     */
    const update = async (
      change: (record: LeaseRecord) => LeaseRecord,
      reads: number,
      going: () => boolean = () => true,
    ) => {
      const attempts = last ? reads + 1 : reads;
      for (let attempt = 0; attempt < attempts && going(); attempt++) {
        const { record, revision } = attempt === 0 && last ? last : await this.read(key);
        if (record.holder?.owner !== owner) return false;
        const next = change(record);
        const at = await this.write(key, next, revision);
        if (at !== null) {
          last = { record: next, revision: at };
          return true;
        }
        last = undefined;
      }
      return true;
    };
    const beat = (record: LeaseRecord) => ({
      ...record,
      holder: record.holder && { ...record.holder, beat: record.holder.beat + 1 },
    });
    const renew = async () => {
      // A renewal lost to a waiter's write is retried at once: a missed beat brings the holder closer to looking dead.
      const ours = await update(beat, 3, () => !released);
      if (!ours && !released) lost.abort(new Error('thread lease lost'));
    };
    const timer = setInterval(() => {
      if (!released) void renew().catch(() => undefined); // a missed renewal is retried on the next tick
    }, this.renewEvery);
    timer.unref();
    return {
      lost: lost.signal,
      release: async () => {
        released = true;
        clearInterval(timer);
        await update((record) => ({ ...record, holder: null }), 5);
      },
    };
  }

  /**
   * Drops a dead holder (or an earlier delivery of `goalId`) and dead waiters, as this instance has watched them;
   * returns the same object when nothing was dropped.
   */
  private prune(key: string, record: LeaseRecord, now: number, goalId: string): LeaseRecord {
    const alive = this.watch.observe(key, [record.holder, ...record.waiting], now);
    const holder =
      record.holder && record.holder.goalId !== goalId && alive(record.holder) ? record.holder : null;
    const waiting = record.waiting.filter(alive);
    if (holder === record.holder && waiting.length === record.waiting.length) return record;
    return { holder, waiting };
  }

  private async read(key: string): Promise<{ record: LeaseRecord; revision: number | undefined }> {
    const { value, revision } = await this.cells.read(key);
    const parsed = value === undefined ? null : LeaseRecord.safeParse(value);
    return { record: parsed?.success ? parsed.data : { holder: null, waiting: [] }, revision };
  }

  /** CAS write: the new revision, or null on a lost race. */
  private write(key: string, record: LeaseRecord, revision: number | undefined): Promise<number | null> {
    return this.cells.write(key, JSON.stringify(record), revision);
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
