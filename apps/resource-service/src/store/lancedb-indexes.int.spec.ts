import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import type { UpsertItem } from '@novelrag/repository';
import { contractEmbedder, makeItem, makeRecord, STORE_CONTRACT_DIMENSIONS } from './contract/fixtures';
import { LanceDbResourceStore } from './lancedb-store';

const embedder = contractEmbedder();

/** `count` elements alternating between two aspects, each with the embedding of its own name. */
function elements(count: number, from = 0): UpsertItem[] {
  return Array.from({ length: count }, (_, index) => {
    const i = from + index;
    const aspect = i % 2 === 0 ? 'character' : 'location';
    const name = `${aspect} number ${i}`;
    return makeItem(makeRecord(`/${aspect}/Item_${i}`, { name }), embedder.embedOne(name));
  });
}

describe('LanceDbResourceStore indexes', () => {
  let dir: string;
  let db: lancedb.Connection;
  const open = (annMinRows: number) =>
    LanceDbResourceStore.open({
      dir,
      dimensions: STORE_CONTRACT_DIMENSIONS,
      annMinRows,
      optimizeEvery: 1000,
    });
  const indexes = async (): Promise<Record<string, string>> => {
    const table = await db.openTable('elements');
    const list = await table.listIndices();
    table.close();
    return Object.fromEntries(list.map((index) => [index.columns.join(','), index.indexType]));
  };
  const trainedRows = async (): Promise<unknown> =>
    (JSON.parse(await readFile(join(dir, 'meta', 'vector-index.json'), 'utf8')) as { rows: unknown }).rows;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'novelrag-lance-idx-'));
  });
  afterEach(async () => {
    db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('indexes the filtered columns from the start and trains the vector index once the table is large', async () => {
    const store = await open(200);
    db = await lancedb.connect(join(dir, 'lance'));
    expect(await indexes()).toEqual({
      uri: 'BTree',
      id_key: 'BTree',
      parent_uri: 'BTree',
      aspect: 'Bitmap',
      text: 'FTS',
    });
    await store.upsert(elements(150));
    await store.optimize();
    expect((await indexes())['vector']).toBeUndefined();

    await store.upsert(elements(150, 150));
    await store.optimize();
    expect((await indexes())['vector']).toBe('IvfFlat');
    expect(await trainedRows()).toBe(300);

    // The aspect filter applies before the nearest-neighbour search: a character's own vector, searched among
    // locations, still fills the limit with locations only.
    const vector = embedder.embedOne('character number 4');
    const located = await store.search({ text: '', vector, aspect: 'location', limit: 10 });
    expect(located).toHaveLength(10);
    expect(located.every((hit) => hit.uri.startsWith('/location/'))).toBe(true);
    const nearest = await store.search({ text: '', vector, limit: 3 });
    expect(nearest[0]?.uri).toBe('/character/Item_4');
    expect((await store.search({ text: 'item_7', vector, limit: 3 }))[0]?.uri).toBe('/location/Item_7');

    // A row written after the training is found at once, by vector and by id, before any optimize.
    const [fresh] = elements(1, 1000);
    await store.upsert([fresh!]);
    const freshVector = embedder.embedOne('character number 1000');
    expect((await store.search({ text: '', vector: freshVector, limit: 1 }))[0]?.uri).toBe(
      '/character/Item_1000',
    );
    expect((await store.segments({ segments: [{ uri: '/character/Item_1000' }] })).missing).toEqual([]);
    await store.close();
  });

  it('retrains the vector index once the table has grown four times past its training', async () => {
    const store = await open(100);
    db = await lancedb.connect(join(dir, 'lance'));
    await store.upsert(elements(120));
    await store.optimize();
    expect(await trainedRows()).toBe(120);
    await store.upsert(elements(300, 120));
    await store.optimize();
    expect(await trainedRows()).toBe(120);
    await store.upsert(elements(100, 420));
    await store.optimize();
    expect(await trainedRows()).toBe(520);
    await store.close();
  });

  it('adds the indexed id key to a table written before it existed', async () => {
    const first = await open(10_000);
    await first.upsert(elements(4));
    await first.close();
    db = await lancedb.connect(join(dir, 'lance'));
    const table = await db.openTable('elements');
    await table.dropIndex('id_key_idx');
    await table.dropColumns(['id_key']);
    table.close();

    const store = await open(10_000);
    expect((await indexes())['id_key']).toBe('BTree');
    const hits = await store.search({ text: 'ITEM_3', vector: embedder.embedOne('x'), limit: 2 });
    expect(hits[0]?.uri).toBe('/location/Item_3');
    await store.close();
  });
});
