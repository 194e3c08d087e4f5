import { InMemoryResourceStore } from './in-memory-store';
import { LocalEmbedder } from './local-embedder';
import { ResourceRepository } from './repository';

const root = (aspect: string) => ({ resource_uri: `/${aspect}`, children_key: null });

async function setup(undoCap?: number) {
  const store = new InMemoryResourceStore();
  const repo = await ResourceRepository.open(store, new LocalEmbedder(16), undoCap ? { undoCap } : {});
  await repo.addAspect('character', { description: 'people' });
  await repo.addAspect('location', { children_keys: ['places'], tone: 'grim' });
  await repo.apply([
    {
      target: 'resource',
      location: root('character'),
      data: [
        { id: 'yu_gui', name: '余归', age: 17 },
        { id: 'lin', name: 'Lin' },
      ],
    },
    {
      target: 'resource',
      location: root('location'),
      data: [{ id: 'azure_sect', places: [{ id: 'hall', places: [{ id: 'altar', lit: true }] }] }],
    },
  ]);
  return { store, repo };
}

describe('ResourceRepository: undo / redo', () => {
  it('undoes a multi-op write in one step, last op first', async () => {
    const { repo } = await setup();
    const before = repo.snapshot();
    // the second op needs the first: undoing first-op-first would fail on the missing element
    await repo.apply([
      { target: 'resource', location: root('character'), data: [{ id: 'mo', name: 'Mo' }] },
      { target: 'property', resource_uri: '/character/mo', data: { age: 40 } },
    ]);
    const after = repo.snapshot();
    const undone = await repo.undo();
    expect(undone).toMatchObject({ action: 'undo', performed: true, count: 2 });
    expect(undone.descriptions).toEqual([
      'update age of /character/mo',
      'remove 1 item(s) at 0 in /character',
    ]);
    expect(repo.snapshot()).toEqual(before);

    const redone = await repo.redo();
    expect(redone).toMatchObject({ action: 'redo', performed: true, count: 2 });
    expect(repo.snapshot()).toEqual(after);
    await repo.undo();
    expect(repo.snapshot()).toEqual(before);
  });

  it('property undo restores the old value, not a deletion', async () => {
    const { repo } = await setup();
    await repo.apply([
      { target: 'property', resource_uri: '/character/yu_gui', data: { age: 18, title: 'heir' } },
    ]);
    await repo.undo();
    expect(repo.find('/character/yu_gui')).toMatchObject({
      record: { properties: { name: '余归', age: 17 } },
    });
    expect(
      (repo.find('/character/yu_gui') as { record: { properties: object } }).record.properties,
    ).not.toHaveProperty('title');
  });

  it('relationship writes return the old list and undo restores it', async () => {
    const { repo } = await setup();
    expect(await repo.updateRelationships('/character/yu_gui', '/location/azure_sect', ['disciple'])).toEqual(
      [],
    );
    expect(await repo.updateRelationships('/character/yu_gui', '/location/azure_sect', ['elder'])).toEqual([
      'disciple',
    ]);
    await repo.undo();
    expect(repo.find('/character/yu_gui')).toMatchObject({
      record: { relationships: { '/location/azure_sect': ['disciple'] } },
    });
    await repo.undo();
    expect(repo.find('/character/yu_gui')).toMatchObject({ record: { relationships: {} } });
    await repo.redo();
    expect(repo.find('/character/yu_gui')).toMatchObject({
      record: { relationships: { '/location/azure_sect': ['disciple'] } },
    });
    expect(repo.recentActions(1, 'redo')[0]?.action).toEqual({
      method: 'update_relationships',
      source_uri: '/character/yu_gui',
      target_uri: '/location/azure_sect',
      relationships: ['elder'],
    });
  });

  it('removing an aspect removes its data; undo restores aspect and elements; undoing an add removes it', async () => {
    const { store, repo } = await setup();
    const before = repo.snapshot();
    const removed = await repo.removeAspect('location');
    expect(removed).toMatchObject({
      aspect: { name: 'location', childrenKeys: ['places'] },
      elementCount: 3,
    });
    expect(repo.find('/location/azure_sect/hall/altar')).toBeNull();
    expect(store.vectorOf('/location/azure_sect/hall/altar')).toBeUndefined();
    await repo.undo();
    expect(repo.snapshot()).toEqual(before);
    expect(repo.find('/location/azure_sect/hall/altar')).toMatchObject({
      record: { properties: { lit: true } },
    });
    expect(store.vectorOf('/location/azure_sect/hall/altar')).toHaveLength(16);
    expect(store.exportState().aspects).toEqual(before.aspects);

    await repo.addAspect('item', {});
    await repo.undo();
    expect(repo.find('/item')).toBeNull();
    await repo.redo();
    expect(repo.find('/item')).toMatchObject({ kind: 'aspect' });
  });

  it('a new write clears redo', async () => {
    const { repo } = await setup();
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 1 } }]);
    await repo.undo();
    expect(repo.recentActions(5, 'redo')).toHaveLength(1);
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 2 } }]);
    expect(repo.recentActions(5, 'redo')).toHaveLength(0);
    expect(await repo.redo()).toEqual({
      action: 'redo',
      performed: false,
      count: 0,
      descriptions: [],
      message: 'Nothing to redo',
      uris: [],
    });
  });

  it('executes mixed actions atomically as one undo group', async () => {
    const { repo } = await setup();
    const before = repo.snapshot();
    const outcome = await repo.execute([
      {
        method: 'add_aspect',
        name: 'weapon',
        config: { children_keys: [] },
        elements: [{ id: 'sword', name: '青锋' }],
      },
      {
        method: 'update_relationships',
        source_uri: '/character/lin',
        target_uri: '/weapon/sword',
        relationships: ['owns'],
      },
      { method: 'apply', op: { target: 'property', resource_uri: '/weapon/sword', data: { sharp: true } } },
    ]);
    expect(outcome.inverses.map((a) => a.method)).toEqual(['remove_aspect', 'update_relationships', 'apply']);
    expect(outcome.uris).toEqual(expect.arrayContaining(['/weapon', '/character/lin']));
    expect(repo.find('/weapon/sword')).toMatchObject({ kind: 'element' });
    expect(await repo.undo()).toMatchObject({ performed: true, count: 3 });
    expect(repo.snapshot()).toEqual(before);
    // A failing action rolls back the ones before it.
    await expect(
      repo.execute([
        { method: 'add_aspect', name: 'weapon', config: { children_keys: [] }, elements: [] },
        { method: 'remove_aspect', name: 'no_such_aspect' },
      ]),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(repo.snapshot()).toEqual(before);
  });

  it('writes sharing an explicit group are undone together', async () => {
    const { repo } = await setup();
    const before = repo.snapshot();
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 1 } }], {
      group: 'tool-call-1',
    });
    await repo.updateRelationships('/character/lin', '/character/yu_gui', ['rival'], {
      group: 'tool-call-1',
    });
    await repo.apply([{ target: 'property', resource_uri: '/character/yu_gui', data: { age: 2 } }], {
      group: 'tool-call-1',
    });
    expect(await repo.undo()).toMatchObject({ count: 3 });
    expect(repo.snapshot()).toEqual(before);
  });

  it('respects the cap and says when there is nothing left', async () => {
    const { repo } = await setup(3);
    for (let i = 0; i < 5; i++)
      await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { n: i } }]);
    for (let i = 0; i < 3; i++) expect((await repo.undo()).performed).toBe(true);
    expect(repo.find('/character/lin')).toMatchObject({ record: { properties: { n: 1 } } });
    expect(await repo.undo()).toMatchObject({ performed: false, message: 'Nothing to undo' });
  });

  it('persists the undo log after each write, undo and redo', async () => {
    const { store, repo } = await setup();
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 1 } }]);
    await repo.undo();
    const saved = store.exportState().undo as { undo: unknown[]; redo: unknown[] };
    expect(saved.redo).toHaveLength(1);
    expect(saved.undo).toHaveLength(repo.recentActions(100).length);
  });
});
