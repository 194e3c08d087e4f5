// Calls of one goal that run at the same time but touch the same resource are run one after the other.

/** A parameter naming a resource: `uri`, `target_uri`, `uris`, `path`, `resource_path`, ... (case-insensitive). */
const RESOURCE_KEY = /(^|_)(uri|uris|path|paths)$/i;

/** The resources a call's parameters name (string values, or strings in arrays, of resource-like keys). */
export function resourcesOf(params: Readonly<Record<string, unknown>>): string[] {
  const found = new Set<string>();
  for (const [key, value] of Object.entries(params)) {
    if (!RESOURCE_KEY.test(key)) continue;
    for (const item of Array.isArray(value) ? value : [value])
      if (typeof item === 'string' && item.trim() !== '') found.add(item.trim());
  }
  return [...found];
}

/**
 * One lane per resource: a call waits until every earlier call that names one of its resources has ended. Calls with
 * no resource in common (or none at all) never wait for each other. Waiting is bounded by the earlier calls, whose
 * own deadlines bound them.
 */
export class ResourceLanes {
  private readonly tails = new Map<string, Promise<void>>();

  /** Waits for the earlier calls on these resources; the returned release must be called when the call ends. */
  async enter(resources: readonly string[]): Promise<() => void> {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const before = resources.map((r) => this.tails.get(r) ?? Promise.resolve());
    for (const r of resources) this.tails.set(r, done);
    await Promise.all(before);
    return () => {
      release();
      for (const r of resources) if (this.tails.get(r) === done) this.tails.delete(r);
    };
  }
}
