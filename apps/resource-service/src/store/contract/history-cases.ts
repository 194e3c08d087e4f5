/// <reference types="jest" />
import {
  type ExecuteOutcome,
  ResourceRepository,
  type ResourceStore,
  type ReversibleAction,
} from '@novelrag/repository';
import type { ContractContext } from './context';
import { contractEmbedder, root } from './fixtures';
import { expectPersisted } from './repository-cases';

/** Removes the first root element of `character`: applied twice, it would remove a second, different element. */
const removeFirst: ReversibleAction = {
  method: 'apply',
  op: { target: 'resource', location: root('character'), start: 0, end: 1, data: null },
};
const setTitle: ReversibleAction = {
  method: 'apply',
  op: { target: 'property', resource_uri: '/character/lin', data: { title: '剑客' } },
};
const once = (key: string) => ({
  key,
  reply: (outcome: ExecuteOutcome) => ({ uris: outcome.uris, inverses: outcome.inverses }),
});
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

async function seed(repo: ResourceRepository): Promise<void> {
  await repo.addAspect('character', { description: 'people' });
  await repo.apply([
    {
      target: 'resource',
      location: root('character'),
      data: [
        { id: 'yu_gui', name: '余归' },
        { id: 'lin', name: 'Lin' },
        { id: 'mo', name: 'Mo' },
      ],
    },
  ]);
}

const rootIds = (repo: ResourceRepository): string[] => {
  const found = repo.find('/character');
  return found?.kind === 'aspect' ? found.rootIds : [];
};

/**
 * `store` as seen by a process that dies right after saving a history document: every later call fails (close
 * still releases the real store, as the restart that follows needs).
 */
function dyingAfterHistory(store: ResourceStore): ResourceStore {
  let dead = false;
  const alive =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (dead) throw new Error('the process died');
      return call(...args);
    };
  return {
    load: alive(() => store.load()),
    upsert: alive((items) => store.upsert(items)),
    delete: alive((uris) => store.delete(uris)),
    updateAspects: alive((delta) => store.updateAspects(delta)),
    saveUndo: alive(async (json) => {
      await store.saveUndo(json);
      dead = true;
    }),
    saveBacklog: alive((json) => store.saveBacklog(json)),
    search: alive((request) => store.search(request)),
    segments: alive((request) => store.segments(request)),
    memory: store.memory,
    close: () => store.close(),
  };
}

/**
 * The repository's history document (undo log, applied idempotency keys, the newest write's journal) goes through
 * `saveUndo` as one document: these cases check that every store keeps it whole across restarts.
 */
export function registerHistoryCases(ctx: () => ContractContext): void {
  it('answers a retried idempotency key after a restart without applying again, also once undone', async () => {
    const repo = await ctx().openRepo();
    await seed(repo);
    const first = await repo.executeOnce([removeFirst, setTitle], once('inv-1-main'), { group: 'inv-1' });
    expect(first.replayed).toBe(false);
    const snapshot = repo.snapshot();
    const history = repo.recentActions(100);

    let current = await ctx().reopenRepo(repo);
    const retry = await current.executeOnce([removeFirst, setTitle], once('inv-1-main'), { group: 'inv-1' });
    expect(retry).toEqual({ replayed: true, reply: asJson(first.reply) });
    expect(current.snapshot()).toEqual(snapshot);
    expect(rootIds(current)).toEqual(['lin', 'mo']);
    expect(current.recentActions(100)).toEqual(history);
    await expectPersisted(ctx(), current);

    expect(await current.undo()).toMatchObject({ performed: true, count: 2 });
    current = await ctx().reopenRepo(current);
    expect((await current.executeOnce([removeFirst], once('inv-1-main'))).replayed).toBe(true);
    expect(rootIds(current)).toEqual(['yu_gui', 'lin', 'mo']);
    await expectPersisted(ctx(), current);
  });

  it('completes a write whose process died after its history document, with its key and undo entries', async () => {
    const seeded = await ctx().openRepo();
    await seed(seeded);
    await ctx().restart(seeded);
    const dying = await ResourceRepository.open(dyingAfterHistory(ctx().store), contractEmbedder());
    // Committed by its history document: the write stands; the store work it could not do is left to finish.
    const died = await dying.executeOnce([removeFirst, setTitle], once('inv-2-main'), { group: 'inv-2' });
    expect(died.replayed).toBe(false);
    expect(dying.repairPending).toBe(true);

    const current = await ctx().reopenRepo(dying);
    expect(rootIds(current)).toEqual(['lin', 'mo']);
    expect(current.find('/character/lin')).toMatchObject({
      record: { properties: { name: 'Lin', title: '剑客' } },
    });
    await expectPersisted(ctx(), current);
    expect((await current.executeOnce([removeFirst, setTitle], once('inv-2-main'))).replayed).toBe(true);
    expect(rootIds(current)).toEqual(['lin', 'mo']);
    expect(await current.undo()).toMatchObject({ performed: true, count: 2 });
    const again = await ctx().reopenRepo(current);
    expect(rootIds(again)).toEqual(['yu_gui', 'lin', 'mo']);
    expect((await again.search('余归', { limit: 1 }))[0]?.uri).toBe('/character/yu_gui');
    await expectPersisted(ctx(), again);
  });
}
