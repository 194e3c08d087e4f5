import { Backlog, type BacklogEntry } from './backlog';
import { unavailable } from './failures';
import type { RepositoryOptions } from './repository-types';
import type { ResourceStore } from './store.port';

/**
 * The repository's backlog: every change runs exclusively (the repository's mutex, marked uncommitted) and is saved
 * whole (`ResourceStore.saveBacklog`); a failed save restores the entries as they were and throws UNAVAILABLE.
 */
export class RepositoryBacklog {
  constructor(
    private backlog: Backlog,
    private readonly store: ResourceStore,
    private readonly options: Pick<RepositoryOptions, 'clock' | 'newId'>,
    private readonly exclusive: <T>(run: () => Promise<T>) => Promise<T>,
  ) {}

  add(content: string, priority?: number): Promise<BacklogEntry> {
    return this.change((backlog) => backlog.add(content, priority));
  }

  list(): BacklogEntry[] {
    return this.backlog.list();
  }

  remove(id: string): Promise<boolean> {
    return this.change((backlog) => backlog.remove(id));
  }

  /** Removes and returns the `n` most important entries. */
  take(n: number): Promise<BacklogEntry[]> {
    return this.change((backlog) => backlog.take(n));
  }

  private change<T>(change: (backlog: Backlog) => T): Promise<T> {
    return this.exclusive(async () => {
      const before = this.backlog.toJSON();
      const result = change(this.backlog);
      try {
        await this.store.saveBacklog(this.backlog.toJSON());
      } catch (err) {
        this.backlog = Backlog.fromJSON(before, {
          ...(this.options.clock ? { clock: this.options.clock } : {}),
          ...(this.options.newId ? { newId: this.options.newId } : {}),
        });
        throw unavailable('save the backlog', err);
      }
      return result;
    });
  }
}
