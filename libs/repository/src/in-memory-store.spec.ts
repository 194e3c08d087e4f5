import { InMemoryResourceStore } from './in-memory-store';
import type { ElementRecord } from './model';

const record = (id: string, properties: ElementRecord['properties']): ElementRecord => ({
  id,
  uri: `/character/${id}`,
  aspect: 'character',
  parentUri: null,
  relationships: {},
  properties,
  children: {},
});

describe('InMemoryResourceStore', () => {
  it('keeps the stored vector when an upsert carries none (unchanged content)', async () => {
    const store = new InMemoryResourceStore();
    await store.upsert([{ record: record('a', { n: 1 }), hash: 'h1', text: 't', vector: [1, 0] }]);
    await store.upsert([
      {
        record: { ...record('a', { n: 1 }), relationships: { '/x': ['y'] } },
        hash: 'h1',
        text: 't',
        vector: null,
      },
    ]);
    expect(store.vectorOf('/character/a')).toEqual([1, 0]);
    expect((await store.load()).records).toEqual([
      { record: { ...record('a', { n: 1 }), relationships: { '/x': ['y'] } }, hash: 'h1' },
    ]);
  });

  it('ranks exact value > exact id > substring > vector only, and limits', async () => {
    const store = new InMemoryResourceStore();
    await store.upsert([
      { record: record('other', { name: 'x' }), hash: 'h', text: '', vector: [1, 0] },
      { record: record('partial', { name: '余归的母亲' }), hash: 'h', text: '', vector: [0, 1] },
      { record: record('yu_gui', { name: '余归' }), hash: 'h', text: '', vector: [0, 1] },
      {
        record: { ...record('loc', { name: '余归' }), aspect: 'location', uri: '/location/loc' },
        hash: 'h',
        text: '',
        vector: [0, 1],
      },
    ]);
    const hits = await store.search({ text: '余归', vector: [1, 0], aspect: 'character', limit: 3 });
    expect(hits.map((hit) => hit.uri)).toEqual([
      '/character/yu_gui',
      '/character/partial',
      '/character/other',
    ]);
    expect(await store.search({ text: '余归', vector: [1, 0], limit: 1 })).toHaveLength(1);
  });

  it('deletes by uri (idempotently) and rejects calls once closed', async () => {
    const store = new InMemoryResourceStore();
    await store.upsert([{ record: record('a', {}), hash: 'h', text: '', vector: [1] }]);
    await store.delete(['/character/a', '/character/never']);
    expect((await store.load()).records).toEqual([]);
    await store.close();
    await expect(store.load()).rejects.toThrow('closed');
  });
});
