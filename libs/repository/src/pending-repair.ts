import { unavailable } from './failures';

/**
 * Store work that a committed write still owes (its records after the history document, or a compensation): retried
 * in the background with backoff (1 s doubling to 30 s) inside the repository's mutex, and run first by the next write.
 */
export class PendingRepair {
  private pending: { run: () => Promise<void>; timer?: NodeJS.Timeout; delayMs: number } | undefined;
  private closed = false;

  /** `exclusive` runs its callback inside the repository's mutex. */
  constructor(private readonly exclusive: (run: () => Promise<void>) => Promise<void>) {}

  /** True while there is work to finish. */
  get isPending(): boolean {
    return this.pending !== undefined;
  }

  /** Remembers the work to finish (replacing any older one) and schedules its background retry. */
  set(run: () => Promise<void>): void {
    clearTimeout(this.pending?.timer);
    this.pending = { run, delayMs: 1_000 };
    this.schedule();
  }

  /** Runs the pending work, if any (call it inside the mutex); throws UNAVAILABLE while it still fails. */
  async finish(): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    try {
      await pending.run();
    } catch (err) {
      throw unavailable('finish an earlier write in the store', err);
    }
    clearTimeout(pending.timer);
    if (this.pending === pending) this.pending = undefined;
  }

  /** Stops the background retries (the work stays journaled for the next open). */
  close(): void {
    this.closed = true;
    clearTimeout(this.pending?.timer);
  }

  private schedule(): void {
    const pending = this.pending;
    if (!pending || this.closed) return;
    pending.timer = setTimeout(() => {
      void this.exclusive(() => this.finish()).catch(() => {
        if (this.pending !== pending) return;
        pending.delayMs = Math.min(pending.delayMs * 2, 30_000);
        this.schedule();
      });
    }, pending.delayMs);
    pending.timer.unref();
  }
}
