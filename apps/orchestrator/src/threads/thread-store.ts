import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  Buckets,
  KvKeys,
  MAX_THREAD_HISTORY,
  SCHEMA_VERSION,
  type ThreadHistoryEntry,
  ThreadRecord,
  type WorkspaceState,
  emptyWorkspace,
} from '@novelrag/contracts';

/**
 * The `threads` KV bucket: the workspace and the history shared by the goals of one thread. Only the holder of the
 * thread's lease writes, so conflicts are not expected; writes still use the revision, and a conflict is resolved by
 * re-reading and applying the change again (bounded).
 */
export class ThreadStore {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, bucket: string = Buckets.threads): Promise<ThreadStore> {
    return new ThreadStore(await new Kvm(nc).create(bucket, { history: 3 }));
  }

  /** The thread, or a fresh one (not stored yet) when it does not exist or its record is unreadable. */
  async get(threadId: string): Promise<ThreadRecord> {
    const entry = await this.kv.get(KvKeys.thread(threadId));
    if (entry && entry.operation === 'PUT' && entry.length > 0) {
      const parsed = ThreadRecord.safeParse({ ...entry.json<object>(), revision: entry.revision });
      if (parsed.success) return parsed.data;
      // A record we cannot read must not block the thread forever: start over, keeping the revision for CAS.
      return { ...fresh(threadId), revision: entry.revision };
    }
    return fresh(threadId);
  }

  /** Applies `change` to the stored thread (CAS, bounded retries) and returns the stored result. */
  async update(threadId: string, change: (current: ThreadRecord) => ThreadRecord): Promise<ThreadRecord> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.get(threadId);
      const { revision: _revision, ...body } = ThreadRecord.parse({
        ...change(current),
        updatedAt: new Date().toISOString(),
      });
      try {
        const key = KvKeys.thread(threadId);
        const data = JSON.stringify(body);
        const next =
          current.revision === undefined
            ? await this.kv.create(key, data)
            : await this.kv.update(key, data, current.revision);
        return { ...body, revision: next };
      } catch (err) {
        if (attempt < 5 && err instanceof Error && /wrong last sequence|key exists/i.test(err.message))
          continue;
        throw err;
      }
    }
  }

  saveWorkspace(threadId: string, workspace: WorkspaceState): Promise<ThreadRecord> {
    return this.update(threadId, (t) => ({ ...t, workspace }));
  }

  /**
   * Records a finished goal (newest last, at most MAX_THREAD_HISTORY; again for the same goal replaces its entry)
   * together with the final workspace (the stored one is kept when none is given).
   */
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

/** The thread's history as the prompts read it (newest last). */
export function formatThreadHistory(history: readonly ThreadHistoryEntry[], n: number): string {
  return history
    .slice(-n)
    .map((h) => {
      const asked = h.request ?? h.goal ?? '';
      return `User: ${asked}\nAgent (${h.status}): ${h.response}`;
    })
    .join('\n\n');
}
