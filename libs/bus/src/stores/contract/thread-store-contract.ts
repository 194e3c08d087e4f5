/// <reference types="jest" />
// The ThreadStore contract: the KV store and the in-memory twin both run it (tests only, not runtime code).
import { MAX_THREAD_HISTORY, type ThreadHistoryEntry, emptyWorkspace } from '@novelrag/contracts';
import type { ThreadStore } from '../thread-store';
import { type ContractFactory, perTest, present } from './harness';

export interface ThreadStoreHarness {
  readonly store: ThreadStore;
  /** Stores `raw` as the value of `threadId` as it is (a record another version wrote, or a broken one). */
  putRaw(threadId: string, raw: string): Promise<void>;
  cleanup(): Promise<void>;
}

const entry = (goalId: string, response = `done ${goalId}`): ThreadHistoryEntry => ({
  goalId,
  request: `asked ${goalId}`,
  goal: null,
  status: 'completed',
  response,
  finishedAt: '2026-03-01T08:00:00.000Z',
});

/** Registers `ThreadStore contract: <name>`; every test gets a fresh, empty store from `factory`. */
export function describeThreadStoreContract(
  name: string,
  factory: ContractFactory<ThreadStoreHarness>,
): void {
  describe(`ThreadStore contract: ${name}`, () => {
    const harness = perTest(factory);
    const store = () => harness().store;

    it('answers a fresh, unstored thread for an unknown id', async () => {
      const thread = await store().get('t-new');
      expect(thread).toMatchObject({ threadId: 't-new', history: [], workspace: emptyWorkspace() });
      expect(thread.revision).toBeUndefined();
    });

    it('stores updates with growing revisions and reads them back', async () => {
      const workspace = { ...emptyWorkspace(), nonexistentUris: ['/nowhere'] };
      const first = await store().saveWorkspace('t1', workspace);
      expect(present(first.revision)).toBeGreaterThan(0);
      expect(await store().get('t1')).toEqual(first);
      const second = await store().update('t1', (t) => ({ ...t, history: [entry('g1')] }));
      expect(present(second.revision)).toBeGreaterThan(present(first.revision));
      expect((await store().get('t1')).workspace).toEqual(first.workspace);
    });

    it('keeps the newest MAX_THREAD_HISTORY finished goals, a goal finished again replacing its entry', async () => {
      for (let i = 0; i < MAX_THREAD_HISTORY + 2; i++) await store().finishGoal('t2', entry(`g${i}`));
      await store().finishGoal('t2', entry('g5', 'again'));
      const { history } = await store().get('t2');
      expect(history).toHaveLength(MAX_THREAD_HISTORY);
      expect(history[history.length - 1]).toEqual(entry('g5', 'again'));
      expect(history.filter((h) => h.goalId === 'g5')).toHaveLength(1);
      expect(history.some((h) => h.goalId === 'g0')).toBe(false);
    });

    it('applies concurrent updates one after the other, none lost', async () => {
      await Promise.all(['a', 'b', 'c'].map((id) => store().finishGoal('t3', entry(id))));
      expect((await store().get('t3')).history.map((h) => h.goalId).sort()).toEqual(['a', 'b', 'c']);
    });

    it('keeps a change written elsewhere since its own last write (another instance, a raw put)', async () => {
      const mine = await store().finishGoal('t6', entry('g1'));
      await harness().putRaw(
        't6',
        JSON.stringify({ ...mine, revision: undefined, history: [...mine.history, entry('elsewhere')] }),
      );
      await store().finishGoal('t6', entry('g2'));
      expect((await store().get('t6')).history.map((h) => h.goalId)).toEqual(['g1', 'elsewhere', 'g2']);
    });

    it('starts over from an unreadable record, and the next write replaces it', async () => {
      await harness().putRaw('t4', JSON.stringify({ threadId: 't4', history: 'not a list' }));
      const thread = await store().get('t4');
      expect(thread.history).toEqual([]);
      expect(thread.revision).toBeGreaterThan(0);
      await store().finishGoal('t4', entry('g1'));
      expect((await store().get('t4')).history.map((h) => h.goalId)).toEqual(['g1']);
    });

    it('writes nothing when the change throws', async () => {
      const stored = await store().finishGoal('t5', entry('g1'));
      const refused = new Error('refused');
      await expect(
        store().update('t5', () => {
          throw refused;
        }),
      ).rejects.toBe(refused);
      expect(await store().get('t5')).toEqual(stored);
    });
  });
}
