import { AsyncMutex } from './mutex';

/**
 * Serialises a repository's changes (one mutex) and tells reads when the state is committed: a change marks the
 * state uncommitted while it runs (it may still be rolled back), and `committed` waits until no change is running.
 */
export class CommitGate {
  private readonly mutex = new AsyncMutex();
  /** Set while a change has changed the in-memory state but not committed it yet. */
  private uncommitted: Promise<void> | undefined;

  /** Runs `run` in the mutex without marking the state uncommitted (store work of an already committed write). */
  exclusive<T>(run: () => Promise<T>): Promise<T> {
    return this.mutex.run(run);
  }

  /** Runs `run` in the mutex, the state marked uncommitted meanwhile. */
  change<T>(run: () => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      let done: (() => void) | undefined;
      this.uncommitted = new Promise<void>((resolve) => (done = resolve));
      try {
        return await run();
      } finally {
        this.uncommitted = undefined;
        done?.();
      }
    });
  }

  /** Waits until no change is running, then runs `read` synchronously (so no change can start in between). */
  async committed<T>(read: () => T): Promise<T> {
    while (this.uncommitted) await this.uncommitted;
    return read();
  }

  /** Resolves once the running and queued changes are done. */
  idle(): Promise<void> {
    return this.mutex.idle();
  }
}
