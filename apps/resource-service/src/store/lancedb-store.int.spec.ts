import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractEmbedder, makeItem, makeRecord, STORE_CONTRACT_DIMENSIONS } from './contract/fixtures';
import { LanceDbResourceStore } from './lancedb-store';

describe('LanceDbResourceStore specifics', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'novelrag-lance-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds an exact Chinese name through the full-text side when the vector side misses it', async () => {
    const store = await LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    const embedder = contractEmbedder();
    // 300 fillers all closer to the query vector than the target, more than the vector side's candidate limit.
    const queryVector = embedder.embedOne('filler');
    const fillers = Array.from({ length: 300 }, (_, i) =>
      makeItem(makeRecord(`/character/filler_${i}`, { name: `filler ${i}` }), queryVector),
    );
    const far = queryVector.map((x) => -x);
    await store.upsert([...fillers, makeItem(makeRecord('/character/yu_gui', { name: '余归' }), far)]);
    const hits = await store.search({ text: '余归', vector: queryVector, limit: 3 });
    expect(hits[0]?.uri).toBe('/character/yu_gui');
    await store.optimize();
    const again = await store.search({ text: '余归', vector: queryVector, limit: 3 });
    expect(again[0]?.uri).toBe('/character/yu_gui');
    await store.close();
  });

  it('refuses a data folder made for other dimensions, and bad vectors', async () => {
    const store = await LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    const record = makeRecord('/character/a', { name: 'a' });
    await expect(store.upsert([makeItem(record, [1, 2, 3])])).rejects.toThrow(/dimensions/);
    await expect(store.search({ text: 'a', vector: [1], limit: 1 })).rejects.toThrow(/dimensions/);
    await store.close();
    await expect(store.load()).rejects.toThrow(/closed/);
    await expect(LanceDbResourceStore.open({ dir, dimensions: 8 })).rejects.toThrow(/32-dimensional/);
  });
});
