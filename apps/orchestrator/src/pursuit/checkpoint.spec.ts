import type { GoalStore, ThreadStore, TracePublisher } from '@novelrag/bus';
import { type GoalRecord, SCHEMA_VERSION, type TraceEvent, emptyWorkspace } from '@novelrag/contracts';
import { GoalCheckpoint } from './checkpoint';
import { finishGoal } from './finish';
import { PursuitStopped } from './stop';
import { GoalTrace } from './trace';
import { silentLog } from '../test/pursuit-fixtures';

const log = silentLog;
const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

function runningRecord(): GoalRecord {
  const now = new Date().toISOString();
  return {
    schemaVersion: SCHEMA_VERSION,
    goalId: 'g-1',
    threadId: 'g-1',
    status: 'running',
    source: 'user',
    goal: 'x',
    request: null,
    lang: null,
    beliefs: [],
    limits: {},
    steps: [],
    usage,
    attempts: 1,
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
}

/** An in-memory GoalStore (get + mutate, revisions counted) whose next read can be held, like a late KV answer. */
class MemoryStore {
  record: GoalRecord = runningRecord();
  private heldRead: (() => void) | undefined;
  holdNextRead = false;

  get(): Promise<GoalRecord> {
    const snapshot = { ...this.record };
    if (!this.holdNextRead) return Promise.resolve(snapshot);
    this.holdNextRead = false;
    return new Promise((resolve) => (this.heldRead = () => resolve(snapshot)));
  }

  answerHeldRead(): void {
    this.heldRead?.();
  }

  /** Another writer (the gateway, another pursuit) changes the record. */
  put(patch: Partial<GoalRecord>): void {
    this.record = { ...this.record, ...patch, revision: (this.record.revision ?? 0) + 1 };
  }

  async mutate(_id: string, change: (c: GoalRecord) => GoalRecord | null): Promise<GoalRecord> {
    await Promise.resolve();
    const next = change({ ...this.record });
    if (next) this.record = { ...next, revision: (this.record.revision ?? 0) + 1 };
    return { ...this.record };
  }
}

const silentTrace = () =>
  new GoalTrace(
    {
      publish: (e: TraceEvent) => Promise.resolve(e),
      publishAll: (lot: unknown[]) => Promise.resolve(lot.map(() => ({ status: 'fulfilled' }))),
    } as unknown as TracePublisher,
    'g-1',
    'g-1',
    log,
    usage,
  );

describe('GoalCheckpoint', () => {
  it('refresh() does not move back to a revision older than one it wrote meanwhile', async () => {
    const store = new MemoryStore();
    const trace = silentTrace();
    const checkpoint = new GoalCheckpoint(store as unknown as GoalStore, store.record, trace);

    // The cancel poll reads revision 1; a tool's question is written (revision 2) before that read is answered.
    store.holdNextRead = true;
    const polled = checkpoint.refresh();
    await checkpoint.write(() => ({ status: 'waiting_for_input' }), 'ask');
    store.answerHeldRead();
    await polled;
    expect(checkpoint.record).toMatchObject({ revision: 2, status: 'waiting_for_input' });

    // finishGoal trusts `record.status` to pass through `running` first: the token budget may end the goal now.
    const threads = {
      get: () => Promise.resolve({ workspace: emptyWorkspace() }),
      finishGoal: () => Promise.resolve({}),
    } as unknown as ThreadStore;
    await finishGoal(
      {
        status: 'abandoned',
        response: 'token budget',
        reason: 'Token budget exhausted',
        limitHit: 'token_budget',
        steps: 0,
        tokens: usage,
        finishedAt: new Date().toISOString(),
      },
      { checkpoint, trace, threads },
    );
    expect(store.record.status).toBe('abandoned');
  });

  it('refresh() adopts a newer revision written by someone else', async () => {
    const store = new MemoryStore();
    const checkpoint = new GoalCheckpoint(store as unknown as GoalStore, store.record, silentTrace());
    store.put({ cancelRequested: true });
    expect(await checkpoint.refresh()).toMatchObject({ revision: 2, cancelRequested: true });
  });

  it('once fenced, refuses to write over a record another pursuit picked up, and says so', async () => {
    const store = new MemoryStore();
    const superseded = jest.fn();
    const checkpoint = new GoalCheckpoint(
      store as unknown as GoalStore,
      store.record,
      silentTrace(),
      superseded,
    );
    checkpoint.fence(1);
    await checkpoint.write(() => ({ steps: [] })); // still ours

    store.put({ attempts: 2, goal: 'the new owner' }); // another instance took the goal over
    await expect(checkpoint.write(() => ({ goal: 'stale' }))).rejects.toMatchObject({
      name: PursuitStopped.name,
      reason: { kind: 'superseded' },
    });
    expect(store.record).toMatchObject({ attempts: 2, goal: 'the new owner', revision: 3 });
    expect(superseded).toHaveBeenCalled();
  });

  it('once fenced, refuses to write over a record that ended, and sees a takeover on refresh', async () => {
    const store = new MemoryStore();
    const superseded = jest.fn();
    const checkpoint = new GoalCheckpoint(
      store as unknown as GoalStore,
      store.record,
      silentTrace(),
      superseded,
    );
    checkpoint.fence(1);
    store.put({ status: 'completed' });
    await expect(checkpoint.write(() => ({ goal: 'stale' }))).rejects.toMatchObject({
      name: PursuitStopped.name,
      reason: { kind: 'superseded' },
    });

    const other = new GoalCheckpoint(
      store as unknown as GoalStore,
      runningRecord(),
      silentTrace(),
      superseded,
    );
    other.fence(1);
    superseded.mockClear();
    store.put({ status: 'running', attempts: 2 });
    await other.refresh();
    expect(superseded).toHaveBeenCalledTimes(1);
  });
});
