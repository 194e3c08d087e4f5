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

/** The ThreadStore over compare-and-swap cells (the KV store and its in-memory twin differ only in their cells). */
export class CasThreadStore implements ThreadStore {
  constructor(
    private readonly cells: CasCells,
    private readonly keyOf: (threadId: string) => string,
  ) {}

  async get(threadId: string): Promise<ThreadRecord> {
    const { value, revision } = await this.cells.read(this.keyOf(threadId));
    if (value === undefined) return fresh(threadId);
    const parsed = ThreadRecord.safeParse({ ...(value as object), revision });
    return parsed.success ? parsed.data : { ...fresh(threadId), revision };
  }

  async update(threadId: string, change: (current: ThreadRecord) => ThreadRecord): Promise<ThreadRecord> {
    for (let attempt = 0; attempt <= 5; attempt++) {
      const current = await this.get(threadId);
      const { revision: _revision, ...body } = ThreadRecord.parse({
        ...change(current),
        updatedAt: new Date().toISOString(),
      });
      const next = await this.cells.write(this.keyOf(threadId), JSON.stringify(body), current.revision);
      if (next !== null) return { ...body, revision: next };
    }
    throw BusError.of('CONFLICT', `thread ${threadId} kept changing while it was updated`, { threadId });
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
