import {
  MAX_THREAD_HISTORY,
  SCHEMA_VERSION,
  type ThreadHistoryEntry,
  ThreadRecord,
  type WorkspaceState,
  emptyWorkspace,
} from '@novelrag/contracts';
import { BusError } from '../errors';
import type { CasCells } from './cas-cells';

/**
 * The workspace and the history shared by the goals of one thread. Only the holder of the thread's lease writes, so
 * conflicts are not expected; writes still go by revision, and a lost race is resolved by re-reading and applying the
 * change again (at most 5 more times, then BusError CONFLICT).
 *
 * - `get` never fails for a missing thread: it answers a fresh one (not stored), also for a stored record that does
 *   not parse (a record we cannot read must not block the thread forever; the revision is kept so the next write
 *   replaces it).
 * - `update` applies `change` to the current thread, stamps `updatedAt` and returns the stored result (with its
 *   revision); an error thrown by `change` propagates and nothing is written.
 * - `finishGoal` records a finished goal (newest last, at most MAX_THREAD_HISTORY; the same goal again replaces its
 *   entry) with the final workspace (the stored one is kept when none is given).
 */
export interface ThreadStore {
  get(threadId: string): Promise<ThreadRecord>;
  update(threadId: string, change: (current: ThreadRecord) => ThreadRecord): Promise<ThreadRecord>;
  saveWorkspace(threadId: string, workspace: WorkspaceState): Promise<ThreadRecord>;
  finishGoal(threadId: string, entry: ThreadHistoryEntry, workspace?: WorkspaceState): Promise<ThreadRecord>;
}

/** Threads whose record this store remembers (the least recently used is forgotten first). */
const KNOWN_THREADS = 256;

/**
 * The ThreadStore over compare-and-swap cells (the KV store and its in-memory twin differ only in their cells). It
 * remembers the record it last read or wrote of each thread: an update is tried on it first (one round trip: the
 * lease holder is the only writer, so it is usually current), and a lost race re-reads.
 */
export class CasThreadStore implements ThreadStore {
  private readonly known = new Map<string, ThreadRecord>();

  constructor(
    private readonly cells: CasCells,
    private readonly keyOf: (threadId: string) => string,
  ) {}

  async get(threadId: string): Promise<ThreadRecord> {
    const { value, revision } = await this.cells.read(this.keyOf(threadId));
    const parsed =
      value === undefined ? undefined : ThreadRecord.safeParse({ ...(value as object), revision });
    const record =
      value === undefined
        ? fresh(threadId)
        : parsed?.success
          ? parsed.data
          : { ...fresh(threadId), revision };
    this.remember(record);
    return record;
  }

  async update(threadId: string, change: (current: ThreadRecord) => ThreadRecord): Promise<ThreadRecord> {
    let guess = this.known.get(threadId);
    for (let attempt = 0; attempt <= 5; attempt++) {
      const current = guess ?? (await this.get(threadId));
      const { revision: _revision, ...body } = ThreadRecord.parse({
        ...change(current),
        updatedAt: new Date().toISOString(),
      });
      const next = await this.cells.write(this.keyOf(threadId), JSON.stringify(body), current.revision);
      if (next !== null) {
        const stored = { ...body, revision: next };
        this.remember(stored);
        return stored;
      }
      if (guess) attempt--; // a remembered record that was no longer current is no lost race: read it now
      guess = undefined;
      this.known.delete(threadId);
    }
    throw BusError.of('CONFLICT', `thread ${threadId} kept changing while it was updated`, { threadId });
  }

  private remember(record: ThreadRecord): void {
    this.known.delete(record.threadId);
    this.known.set(record.threadId, record);
    if (this.known.size > KNOWN_THREADS) this.known.delete(this.known.keys().next().value as string);
  }

  saveWorkspace(threadId: string, workspace: WorkspaceState): Promise<ThreadRecord> {
    return this.update(threadId, (t) => ({ ...t, workspace }));
  }

  finishGoal(threadId: string, entry: ThreadHistoryEntry, workspace?: WorkspaceState): Promise<ThreadRecord> {
    return this.update(threadId, (t) => ({
      ...t,
      workspace: workspace ?? t.workspace,
      history: [...t.history.filter((h) => h.goalId !== entry.goalId), entry].slice(-MAX_THREAD_HISTORY),
    }));
  }
}

function fresh(threadId: string): ThreadRecord {
  return {
    schemaVersion: SCHEMA_VERSION,
    threadId,
    workspace: emptyWorkspace(),
    history: [],
    updatedAt: new Date().toISOString(),
  };
}
