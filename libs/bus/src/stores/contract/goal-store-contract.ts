/// <reference types="jest" />
// The GoalStore contract: the KV store and the in-memory twin both run it (tests only, not runtime code).
import { GoalRecord } from '@novelrag/contracts';
import type { GoalStore } from '../goal-store';
import { type ContractFactory, busFailure, perTest, present, validFixture } from './harness';

export interface GoalStoreHarness {
  readonly store: GoalStore;
  /** Stores `raw` as the value of `goalId` as it is (a record another version wrote, or a broken one). */
  putRaw(goalId: string, raw: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** Registers `GoalStore contract: <name>`; every test gets a fresh, empty store from `factory`. */
export function describeGoalStoreContract(name: string, factory: ContractFactory<GoalStoreHarness>): void {
  describe(`GoalStore contract: ${name}`, () => {
    const harness = perTest(factory);
    const store = () => harness().store;
    const base = GoalRecord.parse(validFixture('GoalRecord', 'queued-untranslated'));

    it('creates, reads and updates a goal with compare-and-swap', async () => {
      const created = await store().create({ ...base, goalId: 'g1' });
      expect(created.revision).toBeGreaterThan(0);
      expect((await busFailure(store().create({ ...base, goalId: 'g1' }))).code).toBe('ALREADY_EXISTS');

      const read = present(await store().get('g1'));
      expect(read).toEqual(created);
      const running = await store().update({ ...read, status: 'running' });
      expect(running.revision).toBeGreaterThan(present(created.revision));
      // A writer holding the old revision loses.
      expect((await busFailure(store().update({ ...read, status: 'cancelled' }))).code).toBe('CONFLICT');
      expect((await store().get('g1'))?.status).toBe('running');
      expect(await store().get('nope')).toBeNull();
    });

    it('updates only from a revision: none given, or a goal that does not exist, is a CONFLICT', async () => {
      const { revision: _none, ...unrevised } = await store().create({ ...base, goalId: 'g-rev' });
      expect((await busFailure(store().update(unrevised))).code).toBe('CONFLICT');
      expect((await busFailure(store().update({ ...base, goalId: 'g-absent', revision: 1 }))).code).toBe(
        'CONFLICT',
      );
      expect(await store().get('g-absent')).toBeNull();
    });

    it('answers a known record while it is still the stored revision, and the stored one once it is not', async () => {
      const created = await store().create({ ...base, goalId: 'g-held' });
      expect(await store().get('g-held', created)).toBe(created); // the same object: nothing read into a new one
      expect(await store().get('g-held', { ...created, goalId: 'g-other' })).toEqual(created);
      const running = await store().update({ ...created, status: 'running' });
      const read = present(await store().get('g-held', created));
      expect(read).not.toBe(created);
      expect(read).toEqual(running);
      await store().delete('g-held');
      expect(await store().get('g-held', running)).toBeNull();
    });

    it('deletes a goal (its id can be created again); deleting a missing goal is no error', async () => {
      await store().create({ ...base, goalId: 'g-del' });
      await store().delete('g-del');
      expect(await store().get('g-del')).toBeNull();
      await store().delete('g-del');
      expect((await store().create({ ...base, goalId: 'g-del' })).goalId).toBe('g-del');
    });

    it('mutate retries on conflicting writers so no update is lost', async () => {
      await store().create({ ...base, goalId: 'g2', beliefs: [] });
      await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          store().mutate('g2', (g) => ({ ...g, beliefs: [...g.beliefs, `b${i}`] }), 20),
        ),
      );
      expect((await store().get('g2'))?.beliefs.slice().sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
      expect((await busFailure(store().mutate('missing', (g) => g))).code).toBe('NOT_FOUND');
    });

    it('mutate writes nothing when the change returns null, and passes the change’s own error on', async () => {
      const created = await store().create({ ...base, goalId: 'g-same' });
      expect(await store().mutate('g-same', () => null)).toEqual(created);
      expect((await store().get('g-same'))?.revision).toBe(created.revision);
      const refused = new Error('refused');
      await expect(
        store().mutate('g-same', () => {
          throw refused;
        }),
      ).rejects.toBe(refused);
    });

    it('mutate applies the change to a known record, and to the stored one when the known one is old', async () => {
      const created = await store().create({ ...base, goalId: 'g-known', beliefs: [] });
      const first = await store().mutate(
        'g-known',
        (g) => ({ ...g, beliefs: [...g.beliefs, 'a'] }),
        0,
        created,
      );
      expect(first.beliefs).toEqual(['a']);
      // Someone else wrote since `first`: the change given the old `created` lands on the stored record, losing nothing.
      await store().mutate('g-known', (g) => ({ ...g, cancelRequested: true }));
      const seen: boolean[] = [];
      const last = await store().mutate(
        'g-known',
        (g) => {
          seen.push(g.cancelRequested);
          return { ...g, beliefs: [...g.beliefs, 'b'] };
        },
        0,
        first,
      );
      expect(seen).toEqual([false, true]);
      expect(last).toMatchObject({ beliefs: ['a', 'b'], cancelRequested: true });
      expect(await store().get('g-known')).toEqual(last);
      // A change refused on the known record is decided again on the stored one.
      const decided = await store().mutate(
        'g-known',
        (g) => {
          if (!g.cancelRequested) throw new Error('refused on the old record');
          return null;
        },
        0,
        created,
      );
      expect(decided).toEqual(last);
    });

    it('lists newest first with filters and cursor pagination', async () => {
      for (let i = 0; i < 5; i++) {
        await store().create({
          ...base,
          goalId: `p${i}`,
          threadId: i % 2 ? 'odd' : 'even',
          status: i === 4 ? 'running' : 'queued',
          createdAt: `2026-01-0${i + 1}T00:00:00.000Z`,
        });
      }
      const first = await store().list({ threadId: 'even', limit: 2 });
      expect(first.goals.map((g) => g.goalId)).toEqual(['p4', 'p2']);
      const second = await store().list({ threadId: 'even', limit: 2, cursor: present(first.nextCursor) });
      expect(second.goals.map((g) => g.goalId)).toEqual(['p0']);
      expect(second.nextCursor).toBeNull();
      expect((await store().list({ status: 'running' })).goals.map((g) => g.goalId)).toEqual(['p4']);
      expect((await busFailure(store().list({ cursor: 'garbage' }))).code).toBe('VALIDATION_FAILED');
    });

    it('lists the goals of one agent kind (a goal without one is novelrag)', async () => {
      await store().create({ ...base, goalId: 'k-plain', threadId: 't' });
      await store().create({ ...base, goalId: 'k-rag', threadId: 't', agent: 'rag' });
      await store().create({ ...base, goalId: 'k-asst', threadId: 't', agent: 'assistant' });
      const ids = async (agent: 'novelrag' | 'rag' | 'assistant') =>
        (await store().list({ agent })).goals.map((g) => g.goalId);
      expect(await ids('rag')).toEqual(['k-rag']);
      expect(await ids('assistant')).toEqual(['k-asst']);
      expect(await ids('novelrag')).toEqual(['k-plain']);
    });

    it('orders goals created at the same time by goal id, descending, across pages', async () => {
      for (const goalId of ['a', 'c', 'b']) await store().create({ ...base, goalId, threadId: 't' });
      const first = await store().list({ limit: 2 });
      const second = await store().list({ limit: 2, cursor: present(first.nextCursor) });
      expect([...first.goals, ...second.goals].map((g) => g.goalId)).toEqual(['c', 'b', 'a']);
    });

    it('reports a stored record that breaks the schema as INTERNAL, and leaves it out of lists', async () => {
      await store().create({ ...base, goalId: 'g-ok' });
      await harness().putRaw('g-broken', JSON.stringify({ goalId: 'g-broken', status: 'nonsense' }));
      expect((await busFailure(store().get('g-broken'))).code).toBe('INTERNAL');
      expect((await store().list()).goals.map((g) => g.goalId)).toEqual(['g-ok']);
    });
  });
}
