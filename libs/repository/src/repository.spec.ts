import { isResourceError, type ResourceError } from './errors';
import { InMemoryResourceStore } from './in-memory-store';
import { LocalEmbedder } from './local-embedder';
import { ResourceRepository } from './repository';
import type { ChangeEvent } from './repository-types';
import type { Embedder } from './store.port';
import {
  CountingEmbedder,
  expectStoreMatchesTree,
  FlakyStore,
  root,
  setup,
} from './testing/repository-fixtures';

async function caught(promise: Promise<unknown>): Promise<ResourceError> {
  try {
    await promise;
  } catch (err) {
    if (isResourceError(err)) return err;
    throw err;
  }
  throw new Error('expected a ResourceError');
}

describe('ResourceRepository: apply', () => {
  it('applies a batch, returns inverses that restore the previous state, and persists it', async () => {
    const { store, repo } = await setup();
    const before = repo.snapshot();
    const outcome = await repo.apply([
      { target: 'resource', location: root('character'), start: 2, data: [{ id: 'mo', name: 'Mo' }] },
      { target: 'property', resource_uri: '/character/lin', data: { name: 'Lin Mo', age: 30 } },
      {
        target: 'resource',
        location: { resource_uri: '/outline/chapter_1', children_key: 'scenes' },
        start: 0,
        end: 1,
        data: [{ id: 's0' }],
      },
    ]);
    expect(outcome.inverses).toHaveLength(3);
    expect(outcome.group).toEqual(expect.any(String));
    expectStoreMatchesTree(store, repo);
    await repo.apply([...outcome.inverses].reverse());
    expect(repo.snapshot()).toEqual(before);
    expectStoreMatchesTree(store, repo);
  });

  it('is atomic: a failing op rolls back the earlier ones and persists nothing', async () => {
    const { store, repo, embedder } = await setup();
    const before = repo.snapshot();
    const stored = store.exportState();
    const error = await caught(
      repo.apply([
        { target: 'resource', location: root('character'), data: [{ id: 'new_one' }] },
        { target: 'property', resource_uri: '/character/yu_gui', data: { age: 99 } },
        { target: 'property', resource_uri: '/character/nobody', data: { age: 1 } },
      ]),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toMatchObject({ operationIndex: 2 });
    expect(repo.snapshot()).toEqual(before);
    expect(store.exportState()).toEqual(stored);
    expect(embedder.calls).toEqual([]);
    expect(repo.recentActions(10)).toHaveLength(
      stored.undo ? (stored.undo as { undo: unknown[] }).undo.length : 0,
    );
  });

  it('detects duplicates against existing elements and across ops of one batch', async () => {
    const { repo } = await setup();
    expect(
      (await caught(repo.apply([{ target: 'resource', location: root('character'), data: [{ id: 'lin' }] }])))
        .code,
    ).toBe('ALREADY_EXISTS');
    const before = repo.snapshot();
    const error = await caught(
      repo.apply([
        { target: 'resource', location: root('character'), data: [{ id: 'twin' }] },
        { target: 'resource', location: root('character'), data: [{ id: 'twin' }] },
      ]),
    );
    expect(error.code).toBe('ALREADY_EXISTS');
    expect(error.details).toMatchObject({ operationIndex: 1, uri: '/character/twin' });
    expect(repo.snapshot()).toEqual(before);
  });

  it('indexes deep children (3 levels) in tree and store, and removes them with their parent', async () => {
    const { store, repo } = await setup();
    await repo.apply([
      {
        target: 'resource',
        location: { resource_uri: '/outline/chapter_1', children_key: 'scenes' },
        start: 1,
        data: [{ id: 'scene', scenes: [{ id: 'beat', scenes: [{ id: 'line', text: 'deep' }] }] }],
      },
    ]);
    expect(repo.find('/outline/chapter_1/scene/beat/line')).toMatchObject({ kind: 'element' });
    expect(store.vectorOf('/outline/chapter_1/scene/beat/line')).toHaveLength(32);
    await repo.apply([{ target: 'resource', location: root('outline'), start: 0, end: 1, data: null }]);
    expect(repo.find('/outline/chapter_1/scene/beat/line')).toBeNull();
    expect(store.vectorOf('/outline/chapter_1/scene/beat/line')).toBeUndefined();
    expectStoreMatchesTree(store, repo);
  });

  it('rejects reserved properties, bad URIs and malformed ops with coded errors', async () => {
    const { repo } = await setup();
    expect(
      (
        await caught(
          repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { hash: 'x' } }]),
        )
      ).code,
    ).toBe('VALIDATION_FAILED');
    expect(
      (await caught(repo.apply([{ target: 'property', resource_uri: '/character/../lin', data: { a: 1 } }])))
        .code,
    ).toBe('INVALID_URI');
    expect(
      (await caught(repo.apply([{ target: 'property', resource_uri: '//', data: { a: 1 } }]))).code,
    ).toBe('INVALID_URI');
    expect(
      (await caught(repo.apply([{ target: 'resource', location: root('character'), data: [{ id: '' }] }])))
        .code,
    ).toBe('VALIDATION_FAILED');
    expect(
      (await caught(repo.apply([{ target: 'resource', location: root('ghost'), data: [{ id: 'x' }] }]))).code,
    ).toBe('NOT_FOUND');
    expect(
      (await caught(repo.apply([{ target: 'resource', location: root('character'), start: 7 }]))).code,
    ).toBe('VALIDATION_FAILED');
    expect((await caught(repo.apply([{ target: 'bogus' }]))).code).toBe('VALIDATION_FAILED');
    expect((await caught(repo.addAspect('bad/name', {}))).code).toBe('INVALID_URI');
    expect((await caught(repo.addAspect('x', { children_keys: ['relationships'] }))).code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await caught(repo.addAspect('character', {}))).code).toBe('ALREADY_EXISTS');
  });

  it('keeps a write whose records failed after its commit point, and finishes it in the store before the next write', async () => {
    const { store, repo } = await setup();
    const events: ChangeEvent[] = [];
    repo.onChange((event) => events.push(event));
    store.failUpserts = true;
    // The history document (with the journal) was saved: the write is durable, so it is not undone.
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 3 } }]);
    expect(repo.find('/character/lin')).toMatchObject({ record: { properties: { age: 3 } } });
    expect(events).toEqual([{ cause: 'apply', uris: ['/character/lin'] }]);
    expect(repo.repairPending).toBe(true);
    // While the store still fails, a later write changes nothing and says so.
    const before = repo.snapshot();
    const undoBefore = repo.recentActions(100);
    const error = await caught(
      repo.apply([{ target: 'property', resource_uri: '/character/mo', data: { age: 9 } }]),
    );
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(repo.snapshot()).toEqual(before);
    expect(repo.recentActions(100)).toEqual(undoBefore);
    // Once it is back, the next write first finishes the earlier one: the store holds both.
    store.failUpserts = false;
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 4 } }]);
    expect(repo.repairPending).toBe(false);
    expectStoreMatchesTree(store, repo);
    // And a restart shows what the service showed.
    const reopened = await ResourceRepository.open(store, new CountingEmbedder());
    expect(reopened.snapshot()).toEqual(repo.snapshot());
  });

  it('finishes the store work of a committed write in the background when no other write comes', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const { store, repo } = await setup();
      store.failUpserts = true;
      await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 3 } }]);
      await jest.advanceTimersByTimeAsync(1_000); // first retry: the store still fails
      expect(repo.repairPending).toBe(true);
      store.failUpserts = false;
      await jest.advanceTimersByTimeAsync(2_000); // the retry after the back-off succeeds
      expect(repo.repairPending).toBe(false);
      expectStoreMatchesTree(store, repo);
    } finally {
      jest.useRealTimers();
    }
  });

  it('reports a failed save of the history document as UNAVAILABLE and leaves tree, undo log and store as they were', async () => {
    const { store, repo } = await setup();
    const before = repo.snapshot();
    const undoBefore = repo.recentActions(100);
    const events: ChangeEvent[] = [];
    repo.onChange((event) => events.push(event));
    store.failNextUndoSave = true;
    const error = await caught(
      repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 3 } }]),
    );
    expect(error.code).toBe('UNAVAILABLE');
    expect(repo.snapshot()).toEqual(before);
    expect(repo.recentActions(100)).toEqual(undoBefore);
    expect(events).toEqual([]);
    expectStoreMatchesTree(store, repo);
  });

  it('reads through committed() wait for a write in progress: never shown before it commits (it may fail)', async () => {
    const store = new FlakyStore();
    let release: (fail: boolean) => void = () => undefined;
    const inner = new LocalEmbedder(32);
    let gated = false;
    const embedder: Embedder = {
      dimensions: 32,
      embed: (texts) =>
        gated
          ? new Promise((resolve, reject) => {
              release = (fail) => (fail ? reject(new Error('embedder down')) : resolve(inner.embed(texts)));
            })
          : inner.embed(texts),
    };
    const repo = await ResourceRepository.open(store, embedder);
    await repo.addAspect('character', {});
    await repo.apply([
      { target: 'resource', location: root('character'), data: [{ id: 'lin', name: 'Lin' }] },
    ]);
    const age = () =>
      (repo.find('/character/lin') as { record: { properties: { age?: number } } }).record.properties.age;

    gated = true;
    const failing = repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 3 } }]);
    await new Promise((r) => setImmediate(r)); // the write has changed the tree and waits on the embedder
    expect(age()).toBe(3); // the plain read shows the in-memory state…
    const during = repo.committed(age); // …a committed read waits
    release(true);
    await expect(failing).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(during).resolves.toBeUndefined(); // the failed write was never shown

    const succeeding = repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 4 } }]);
    await new Promise((r) => setImmediate(r));
    const after = repo.committed(age);
    release(false);
    await succeeding;
    await expect(after).resolves.toBe(4);
  });

  it('emits a change event after each committed write', async () => {
    const { repo } = await setup();
    const events: ChangeEvent[] = [];
    const off = repo.onChange((event) => events.push(event));
    repo.onChange(() => {
      throw new Error('a bad listener does not break writes');
    });
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 3 } }]);
    await repo.updateRelationships('/character/lin', '/outline/chapter_1', ['appears in']);
    await repo.removeAspect('outline');
    await repo.undo();
    off();
    await repo.redo();
    expect(events).toEqual([
      { cause: 'apply', uris: ['/character/lin'] },
      { cause: 'relationships', uris: ['/character/lin'] },
      { cause: 'aspect_removed', uris: ['/outline', '/outline/chapter_1', '/outline/chapter_1/s1'] },
      { cause: 'undo', uris: ['/outline', '/outline/chapter_1', '/outline/chapter_1/s1'] },
    ]);
  });

  it('serialises concurrent writes: many parallel applies give a consistent tree and store', async () => {
    const { store, repo } = await setup();
    const writes = Array.from({ length: 25 }, (_, i) =>
      repo.apply([
        { target: 'resource', location: root('character'), start: 0, data: [{ id: `c${i}`, n: i }] },
        { target: 'property', resource_uri: '/character/yu_gui', data: { last: i } },
      ]),
    );
    writes.push(
      repo
        .apply([{ target: 'resource', location: root('character'), data: [{ id: 'c3' }] }])
        .catch((err) => err),
    );
    const results = await Promise.all(writes);
    // FIFO: the last write runs after the one that created c3
    expect(isResourceError(results[25], 'ALREADY_EXISTS')).toBe(true);
    const ids = (repo.find('/character') as { rootIds: string[] }).rootIds;
    expect(ids.slice(0, 25)).toEqual(Array.from({ length: 25 }, (_, i) => `c${24 - i}`));
    expect(repo.find('/character/yu_gui')).toMatchObject({ record: { properties: { last: 24 } } });
    expectStoreMatchesTree(store, repo);
    expect(repo.recentActions(200)).toHaveLength(2 * 25 + 4); // setup: 2 aspects + a 2-op batch
  });
});

describe('ResourceRepository: persistence', () => {
  it('loads a previous state into a new repository without re-embedding, undo and backlog included', async () => {
    const { store, repo } = await setup();
    const unrelated = store.vectorOf('/character/lin');
    await repo.updateRelationships('/character/lin', '/character/yu_gui', ['friend']);
    await repo.addBacklog('introduce the Azure Sect', 7);
    const snapshot = repo.snapshot();
    await repo.close();

    const reopenedStore = new InMemoryResourceStore({
      state: store.exportState(),
      vectors: store.exportVectors(),
    });
    const embedder = new CountingEmbedder();
    const reopened = await ResourceRepository.open(reopenedStore, embedder);
    expect(reopened.snapshot()).toEqual(snapshot);
    expect(embedder.calls).toEqual([]);
    expect(reopened.listBacklog().map((entry) => entry.content)).toEqual(['introduce the Azure Sect']);
    const undone = await reopened.undo();
    expect(undone).toMatchObject({ performed: true, count: 1 });
    expect((await reopened.search('余归', { limit: 1 }))[0]?.uri).toBe('/character/yu_gui');
    // the undo re-indexed both ends of the relationship (it is part of their search text)
    expect(reopenedStore.vectorOf('/character/lin')).toEqual(unrelated);
    expect(reopened.find('/character/lin')).toMatchObject({ record: { relationships: {} } });
  });

  it('deletes orphans and re-embeds records whose stored hash is stale on open', async () => {
    const { store } = await setup();
    const state = store.exportState();
    const lin = state.records.find((stored) => stored.record.uri === '/character/lin')!;
    const orphan = { record: { ...lin.record, id: 'ghost', uri: '/character/ghost' }, hash: 'x' };
    const stale = { ...lin, hash: 'stale' };
    const dirty = new InMemoryResourceStore({
      state: { ...state, records: [...state.records.filter((stored) => stored !== lin), stale, orphan] },
    });
    const embedder = new CountingEmbedder();
    const repo = await ResourceRepository.open(dirty, embedder);
    expect(embedder.calls).toEqual([['Lin']]);
    expect(dirty.vectorOf('/character/ghost')).toBeUndefined();
    expectStoreMatchesTree(dirty, repo);
  });
});
