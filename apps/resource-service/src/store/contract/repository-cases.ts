/// <reference types="jest" />
import { isResourceError, type ResourceRepository } from '@novelrag/repository';
import type { ContractContext } from './context';
import { normalised, root, searchEntry } from './fixtures';

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (isResourceError(err)) return err.code;
    throw err;
  }
  throw new Error('expected a ResourceError');
}

/** The store holds exactly the repository's tree (records with their search hashes, and aspects). */
export async function expectPersisted(ctx: ContractContext, repo: ResourceRepository): Promise<void> {
  const state = normalised(await ctx.store.load());
  const snapshot = repo.snapshot();
  expect(state.aspects).toEqual(snapshot.aspects);
  const records = [...snapshot.records].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  expect(state.records).toEqual(
    records.map((record) => ({ record, hash: searchEntry(record, records).hash })),
  );
}

async function seedSmall(repo: ResourceRepository): Promise<void> {
  await repo.addAspect('character', { description: 'people', schema: { name: 'string' } });
  await repo.addAspect('outline', { children_keys: ['parts'] });
  await repo.apply([
    {
      target: 'resource',
      location: root('character'),
      data: [
        { id: 'yu_gui', name: '余归', age: 17 },
        { id: 'lin', name: 'Lin' },
      ],
    },
  ]);
}

/** Cases through `ResourceRepository.open(store, LocalEmbedder)`: every write persisted and undoable across restarts. */
export function registerRepositoryCases(ctx: () => ContractContext): void {
  it('persists created aspects and elements across a restart', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    await expectPersisted(ctx(), repo);
    const before = repo.snapshot();
    const reopened = await ctx().reopenRepo(repo);
    expect(reopened.snapshot()).toEqual(before);
    expect(reopened.find('/character/yu_gui')).not.toBeNull();
  });

  it('persists a property update and its inverse', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    const outcome = await repo.apply([
      { target: 'property', resource_uri: '/character/yu_gui', data: { age: 18, title: '剑客', name: null } },
    ]);
    await expectPersisted(ctx(), repo);
    const reopened = await ctx().reopenRepo(repo);
    expect(reopened.snapshot().records.find((r) => r.uri === '/character/yu_gui')?.properties).toEqual({
      age: 18,
      title: '剑客',
    });
    await reopened.apply(outcome.inverses);
    await expectPersisted(ctx(), reopened);
    expect(reopened.snapshot().records.find((r) => r.uri === '/character/yu_gui')?.properties).toEqual({
      name: '余归',
      age: 17,
    });
  });

  it('persists splices (insert, replace, remove) and their inverses', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    const start = repo.snapshot();
    const insert = await repo.apply([
      { target: 'resource', location: root('character'), start: 1, data: [{ id: 'mid', name: '中' }] },
    ]);
    const replace = await repo.apply([
      {
        target: 'resource',
        location: root('character'),
        start: 0,
        end: 1,
        data: [{ id: 'new_a', name: 'A' }],
      },
    ]);
    const remove = await repo.apply([{ target: 'resource', location: root('character'), start: 2, end: 3 }]);
    await expectPersisted(ctx(), repo);
    expect(repo.snapshot().aspects.find((a) => a.name === 'character')?.rootIds).toEqual(['new_a', 'mid']);
    for (const outcome of [remove, replace, insert]) await repo.apply([...outcome.inverses].reverse());
    await expectPersisted(ctx(), repo);
    const reopened = await ctx().reopenRepo(repo);
    expect(reopened.snapshot()).toEqual(start);
  });

  it('rejects duplicates without touching the store', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    const before = normalised(await ctx().store.load());
    const duplicate = repo.apply([
      { target: 'resource', location: root('character'), data: [{ id: 'lin' }] },
    ]);
    expect(await errorCode(duplicate)).toBe('ALREADY_EXISTS');
    const inBatch = repo.apply([
      { target: 'resource', location: root('character'), data: [{ id: 'twin' }, { id: 'twin' }] },
    ]);
    expect(await errorCode(inBatch)).toBe('ALREADY_EXISTS');
    expect(await errorCode(repo.addAspect('character', {}))).toBe('ALREADY_EXISTS');
    expect(normalised(await ctx().store.load())).toEqual(before);
  });

  it('persists children three levels deep and deletes them with their parent', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    await repo.apply([
      {
        target: 'resource',
        location: root('outline'),
        data: [
          { id: 'book', parts: [{ id: 'p1', parts: [{ id: 's1', parts: [{ id: 'beat', text: '深处' }] }] }] },
        ],
      },
    ]);
    const deep = '/outline/book/p1/s1/beat';
    const reopened = await ctx().reopenRepo(repo);
    expect(reopened.find(deep)).not.toBeNull();
    const stored = (await ctx().store.load()).records.find((s) => s.record.uri === deep);
    expect(stored?.record).toMatchObject({
      id: 'beat',
      parentUri: '/outline/book/p1/s1',
      properties: { text: '深处' },
    });
    await reopened.apply([{ target: 'resource', location: root('outline'), start: 0, end: 1 }]);
    const uris = (await ctx().store.load()).records.map((s) => s.record.uri);
    expect(uris.filter((uri) => uri.startsWith('/outline/'))).toEqual([]);
    await expectPersisted(ctx(), reopened);
    const undone = await reopened.undo();
    expect(undone.performed).toBe(true);
    const again = await ctx().reopenRepo(reopened);
    expect(again.find(deep)).not.toBeNull();
    await expectPersisted(ctx(), again);
  });

  it('persists relationships, their removal and undo', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    await repo.updateRelationships('/character/yu_gui', '/character/lin', ['师兄', 'rival']);
    let reopened = await ctx().reopenRepo(repo);
    expect(reopened.find('/character/yu_gui')).toBeTruthy();
    const record = () => reopened.snapshot().records.find((r) => r.uri === '/character/yu_gui');
    expect(record()?.relationships).toEqual({ '/character/lin': ['师兄', 'rival'] });
    await reopened.updateRelationships('/character/yu_gui', '/character/lin', []);
    reopened = await ctx().reopenRepo(reopened);
    expect(record()?.relationships).toEqual({});
    await reopened.undo();
    reopened = await ctx().reopenRepo(reopened);
    expect(record()?.relationships).toEqual({ '/character/lin': ['师兄', 'rival'] });
    await expectPersisted(ctx(), reopened);
  });

  it('removes an aspect with its data from the store, and undo restores both', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    const before = repo.snapshot();
    const removed = await repo.removeAspect('character');
    expect(removed.elementCount).toBe(2);
    const state = await ctx().store.load();
    expect(state.aspects.map((a) => a.name)).toEqual(['outline']);
    expect(state.records.filter((s) => s.record.aspect === 'character')).toEqual([]);
    const reopened = await ctx().reopenRepo(repo);
    expect(reopened.find('/character')).toBeNull();
    await reopened.undo();
    await expectPersisted(ctx(), reopened);
    const again = await ctx().reopenRepo(reopened);
    expect(again.snapshot()).toEqual(before);
    expect((await again.search('余归'))[0]?.uri).toBe('/character/yu_gui');
  });

  it('persists undo/redo groups across restarts', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    const base = repo.snapshot();
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 30 } }], {
      group: 'g1',
    });
    await repo.apply([{ target: 'resource', location: root('character'), data: [{ id: 'extra' }] }], {
      group: 'g1',
    });
    const grouped = repo.snapshot();
    let current = await ctx().reopenRepo(repo);
    expect(current.recentActions(2).map((entry) => entry.group)).toEqual(['g1', 'g1']);
    const undone = await current.undo();
    expect(undone.count).toBe(2);
    current = await ctx().reopenRepo(current);
    expect(current.snapshot()).toEqual(base);
    await current.redo();
    current = await ctx().reopenRepo(current);
    expect(current.snapshot()).toEqual(grouped);
    await expectPersisted(ctx(), current);
  });

  it('persists the backlog across restarts', async () => {
    const repo = await ctx().openRepo();
    const first = await repo.addBacklog('写第二章', 8);
    await repo.addBacklog('Name the harbor', 3);
    let current = await ctx().reopenRepo(repo);
    expect(current.listBacklog().map((e) => e.content)).toEqual(['写第二章', 'Name the harbor']);
    expect(await current.removeBacklog(first.id)).toBe(true);
    current = await ctx().reopenRepo(current);
    expect(current.listBacklog().map((e) => e.content)).toEqual(['Name the harbor']);
  });

  it('keeps the vector of a record whose content did not change (relationship-only write)', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    await repo.updateRelationships('/character/yu_gui', '/character/lin', ['friend']);
    const current = await ctx().reopenRepo(repo);
    const hits = await current.search('余归', { limit: 1 });
    expect(hits.map((hit) => hit.uri)).toEqual(['/character/yu_gui']);
    expect(hits[0]?.element).toMatchObject({ relationships: { '/character/lin': ['friend'] } });
  });

  it('returns the same load() state after a restart', async () => {
    const repo = await ctx().openRepo();
    await seedSmall(repo);
    await repo.addBacklog('x');
    await repo.updateRelationships('/character/lin', '/character/yu_gui', ['sister']);
    const before = normalised(await ctx().store.load());
    await ctx().restart(repo);
    expect(normalised(await ctx().store.load())).toEqual(before);
  });
}
