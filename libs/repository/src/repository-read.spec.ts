import { InMemoryResourceStore } from './in-memory-store';
import { LocalEmbedder } from './local-embedder';
import { ResourceRepository } from './repository';
import type { Embedder, SearchHit, SearchRequest, SegmentsResult } from './store.port';

const root = (aspect: string) => ({ resource_uri: `/${aspect}`, children_key: null });

async function setup() {
  const store = new InMemoryResourceStore();
  const repo = await ResourceRepository.open(store, new LocalEmbedder());
  await repo.addAspect('character', { description: 'people', schema: { name: 'string' } });
  await repo.addAspect('location', { children_keys: ['places'] });
  await repo.apply([
    {
      target: 'resource',
      location: root('character'),
      data: [
        { id: 'yu_mother', name: '余归的母亲', bio: '她常常想起余归' },
        { id: 'lin', name: '林默', bio: 'A swordsman of the Azure Sect' },
        {
          id: 'yu_gui',
          name: '余归',
          bio: '主角',
          relationships: { '/location/azure_sect': ['disciple'], '/character/lin': ['friend'] },
        },
        { id: 'gui_lai', name: '归来' },
      ],
    },
    {
      target: 'resource',
      location: root('location'),
      data: [{ id: 'azure_sect', name: 'Azure Sect', places: [{ id: 'hall' }, { id: 'garden' }] }],
    },
  ]);
  return { store, repo };
}

describe('ResourceRepository: search', () => {
  it('finds 余归 by exact name first, then partial matches, as contextViews', async () => {
    const { repo } = await setup();
    const results = await repo.search('余归', { limit: 3 });
    expect(results.map((result) => result.uri)).toEqual([
      '/character/yu_gui',
      '/character/yu_mother',
      expect.any(String),
    ]);
    expect(results[0]?.element).toEqual({
      id: 'yu_gui',
      uri: '/character/yu_gui',
      name: '余归',
      bio: '主角',
      aspect: 'character',
      relationships: { '/location/azure_sect': ['disciple'], '/character/lin': ['friend'] },
    });
  });

  it('matches ids and English names, filters by aspect', async () => {
    const { repo } = await setup();
    expect((await repo.search('azure sect', { limit: 1 }))[0]?.uri).toBe('/location/azure_sect');
    expect((await repo.search('lin', { limit: 1 }))[0]?.uri).toBe('/character/lin');
    const located = await repo.search('azure', { aspect: 'character' });
    expect(located.every((result) => result.element['aspect'] === 'character')).toBe(true);
    expect(located[0]?.uri).toBe('/character/lin');
  });

  it('rejects an empty query and an unknown aspect', async () => {
    const { repo } = await setup();
    await expect(repo.search('  ')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(repo.search('x', { aspect: 'ghost' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('drops hits the tree no longer has (a stale index never breaks search)', async () => {
    class StaleIndexStore extends InMemoryResourceStore {
      override async search(request: SearchRequest): Promise<SearchHit[]> {
        return [{ uri: '/character/ghost', score: 99 }, ...(await super.search(request))];
      }
    }
    const { store } = await setup();
    const repo = await ResourceRepository.open(
      new StaleIndexStore({ state: store.exportState(), vectors: store.exportVectors() }),
      new LocalEmbedder(),
    );
    const results = await repo.search('余归', { limit: 2 });
    expect(results.map((result) => result.uri)).toEqual(['/character/yu_gui', '/character/yu_mother']);
  });
});

describe('ResourceRepository: segments', () => {
  it('returns property-filtered segments with excluded uris removed everywhere, and missing uris', async () => {
    const { repo } = await setup();
    const result = await repo.segments({
      segments: [
        { uri: '/' },
        { uri: '/character', excludedProperties: ['schema'] },
        { uri: '/character/yu_gui', excludedProperties: ['bio'] },
        { uri: '/location/azure_sect' },
        { uri: '/character/lin' },
        { uri: '/character/nobody' },
        { uri: '//bad' },
      ],
      excludedUris: ['/character/lin', '/location/azure_sect/garden', '/location'],
    });
    expect(result.missing).toEqual(['/character/nobody', '//bad']);
    expect(result.segments).toEqual([
      {
        uri: '/',
        kind: 'root',
        properties: {},
        excludedProperties: [],
        childIds: { aspects: ['character'] },
        relationships: {},
      },
      {
        uri: '/character',
        kind: 'aspect',
        properties: { name: 'character', description: 'people', children_keys: [] },
        excludedProperties: ['schema'],
        childIds: { top_child_resources: ['yu_mother', 'yu_gui', 'gui_lai'] },
        relationships: {},
      },
      {
        uri: '/character/yu_gui',
        kind: 'element',
        properties: { name: '余归' },
        excludedProperties: ['bio'],
        childIds: {},
        relationships: { '/location/azure_sect': ['disciple'] },
      },
      {
        uri: '/location/azure_sect',
        kind: 'element',
        properties: { name: 'Azure Sect' },
        excludedProperties: [],
        childIds: { places: ['hall'] },
        relationships: {},
      },
    ]);
  });
});

describe('ResourceRepository: segments from the tree', () => {
  it('needs no store query: answers while the store cannot, equal to what the store holds', async () => {
    class NoSegmentsStore extends InMemoryResourceStore {
      override async segments(): Promise<SegmentsResult> {
        throw new Error('segments query failed');
      }
    }
    const { store } = await setup();
    const failing = new NoSegmentsStore({ state: store.exportState(), vectors: store.exportVectors() });
    const repo = await ResourceRepository.open(failing, new LocalEmbedder());
    await repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 30 } }]);
    const request = {
      segments: [
        { uri: '/' },
        { uri: '/location' },
        { uri: '/character/lin', excludedProperties: ['bio'] },
        { uri: '/location/azure_sect' },
        { uri: '/character/nobody' },
      ],
      excludedUris: ['/location/azure_sect/hall'],
    };
    const stored = new InMemoryResourceStore({
      state: failing.exportState(),
      vectors: failing.exportVectors(),
    });
    const result = await repo.segments(request);
    expect(result).toEqual(await stored.segments(request));
    expect(result.segments[2]?.properties).toEqual({ name: '林默', age: 30 });
  });

  it('shows committed state only: waits for a write in progress, and never shows one that fails', async () => {
    let release: (fail: boolean) => void = () => undefined;
    const inner = new LocalEmbedder();
    let gated = false;
    const embedder: Embedder = {
      dimensions: inner.dimensions,
      embed: (texts) =>
        gated
          ? new Promise((resolve, reject) => {
              release = (fail) => (fail ? reject(new Error('embedder down')) : resolve(inner.embed(texts)));
            })
          : inner.embed(texts),
    };
    const repo = await ResourceRepository.open(new InMemoryResourceStore(), embedder);
    await repo.addAspect('character', {});
    await repo.apply([
      { target: 'resource', location: root('character'), data: [{ id: 'lin', name: 'Lin' }] },
    ]);
    const age = async () =>
      (await repo.segments({ segments: [{ uri: '/character/lin' }] })).segments[0]?.properties['age'];

    gated = true;
    const failing = repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 3 } }]);
    await new Promise((r) => setImmediate(r)); // the write has changed the tree and waits on the embedder
    const during = age();
    release(true);
    await expect(failing).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(during).resolves.toBeUndefined();

    const succeeding = repo.apply([{ target: 'property', resource_uri: '/character/lin', data: { age: 4 } }]);
    await new Promise((r) => setImmediate(r));
    const after = age();
    release(false);
    await succeeding;
    await expect(after).resolves.toBe(4);
  });
});

describe('ResourceRepository: backlog', () => {
  it('orders, dedupes, takes, removes and persists entries', async () => {
    const { store, repo } = await setup();
    await repo.addBacklog('introduce the founder', 3);
    const sect = await repo.addBacklog('describe the Azure Sect');
    await repo.addBacklog('resolve 余归 arc', 9);
    await repo.addBacklog('introduce the founder', 8);
    expect(repo.listBacklog().map((entry) => [entry.content, entry.priority])).toEqual([
      ['resolve 余归 arc', 9],
      ['introduce the founder', 8],
      ['describe the Azure Sect', 5],
    ]);
    expect((await repo.takeBacklog(1)).map((entry) => entry.content)).toEqual(['resolve 余归 arc']);
    expect(await repo.removeBacklog(sect.id)).toBe(true);
    expect(
      (store.exportState().backlog as { entries: { content: string }[] }).entries.map(
        (entry) => entry.content,
      ),
    ).toEqual(['introduce the founder']);
    await expect(repo.addBacklog('x', 42)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
