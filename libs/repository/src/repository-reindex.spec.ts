import { InMemoryResourceStore } from './in-memory-store';
import { ResourceRepository } from './repository';
import { CountingEmbedder, expectStoreMatchesTree, setup } from './testing/repository-fixtures';

describe('ResourceRepository: what is re-embedded', () => {
  it('re-embeds only records whose search text changed, neighbours that show a changed name included', async () => {
    const { store, repo, embedder } = await setup();
    const linVector = store.vectorOf('/character/lin');
    // A relationship is part of the search text at both ends (labels and the other end's name).
    await repo.updateRelationships('/character/lin', '/character/yu_gui', ['friend']);
    expect(embedder.calls).toEqual([
      [expect.stringContaining('friend: 余归'), expect.stringContaining('friend of Lin')],
    ]);
    expect(
      store.exportState().records.find((stored) => stored.record.uri === '/character/lin')?.record
        .relationships,
    ).toEqual({
      '/character/yu_gui': ['friend'],
    });
    const related = store.vectorOf('/character/lin');
    expect(related).not.toEqual(linVector);

    embedder.calls.length = 0;
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { name: 'Lin' } }]);
    expect(embedder.texts).toBe(0);
    expect(store.vectorOf('/character/lin')).toEqual(related);

    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { name: 'Lin Mo' } }]);
    expect(embedder.calls).toEqual([
      [expect.stringMatching(/^Lin Mo\n/), expect.stringContaining('friend of Lin Mo')],
    ]);
    expect(store.vectorOf('/character/lin')).not.toEqual(related);

    embedder.calls.length = 0;
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 40 } }]);
    expect(embedder.calls).toEqual([[expect.stringContaining('age: 40')]]);

    embedder.calls.length = 0;
    await repo.apply([
      {
        target: 'resource',
        location: { resource_uri: '/outline/chapter_1', children_key: 'scenes' },
        start: 1,
        data: [{ id: 's2', title: 'Night' }],
      },
    ]);
    // the new child is embedded, and its parent, whose text lists its children's names
    expect(embedder.calls).toEqual([
      expect.arrayContaining([
        expect.stringMatching(/^Night\n/),
        expect.stringContaining('scenes: s1, Night'),
      ]),
    ]);
    expect(embedder.texts).toBe(2);
  });

  it('re-embeds every element on open when the embedding model changed (same vector size)', async () => {
    const { store, repo } = await setup();
    const count = repo.snapshot().records.length;
    await repo.close();
    const state = { state: store.exportState(), vectors: store.exportVectors() };
    const same = new CountingEmbedder();
    await ResourceRepository.open(new InMemoryResourceStore(state), same);
    expect(same.texts).toBe(0);
    const other = Object.assign(new CountingEmbedder(), { id: 'openai-compatible:another-model:32' });
    const reopenedStore = new InMemoryResourceStore(state);
    const reopened = await ResourceRepository.open(reopenedStore, other);
    expect(other.texts).toBe(count);
    expectStoreMatchesTree(reopenedStore, reopened, other.id);
  });
});
