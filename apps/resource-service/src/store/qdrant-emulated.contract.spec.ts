import { randomBytes } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { contractEmbedder, makeItem, makeRecord, STORE_CONTRACT_DIMENSIONS } from './contract/fixtures';
import { qdrantContractStore } from './contract/qdrant-factory';
import { describeStoreContract } from './contract/store-contract';
import { LocalEmbedder, NAME_TERM_PREFIX } from '@novelrag/repository';
import { elementPoint } from './qdrant-mapping';
import { QdrantResourceStore } from './qdrant-store';
import { sparseVector } from './sparse';
import * as qdrantEmulator from './testing/qdrant-emulator';

// EMULATED Qdrant: QdrantResourceStore and the real QdrantClient over HTTP, against the in-process emulator of
// the REST subset the store uses (testing/qdrant-emulator.ts). It is not a Qdrant server: it proves the store's
// request logic against Qdrant's documented semantics, while qdrant.contract.int.spec.ts (a real server) stays
// the word on what Qdrant itself does.
const SUITE = 'Qdrant EMULATED (in-process HTTP subset of the REST API, not a Qdrant server)';

let emulator: Promise<qdrantEmulator.RunningQdrantEmulator> | undefined;
const running = () => (emulator ??= qdrantEmulator.start());
const newName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;
const clientOf = (url: string) => new QdrantClient({ url, checkCompatibility: false });

afterAll(async () => {
  if (emulator) await (await emulator).close();
});

describeStoreContract(SUITE, {
  async create() {
    return qdrantContractStore(clientOf((await running()).url));
  },
});

describe(`${SUITE}: focused checks`, () => {
  let server: qdrantEmulator.RunningQdrantEmulator;
  let client: QdrantClient;
  const notEmulated = (status: number) => ({
    status,
    data: { status: { error: expect.stringContaining('not emulated') as unknown } },
  });

  beforeAll(async () => {
    server = await running();
    client = clientOf(server.url);
  });

  it('searches with a dense, a sparse keyword and a sparse name query, each with the aspect filter', async () => {
    const collection = newName('shape');
    const store = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: STORE_CONTRACT_DIMENSIONS,
    });
    await store.upsert([
      makeItem(makeRecord('/character/alice', { name: 'Alice Liddell' })),
      makeItem(makeRecord('/location/wonderland', { name: 'Alice in Wonderland' })),
    ]);
    const vector = contractEmbedder().embedOne('Alice');
    const hits = await store.search({ text: 'Alice', vector, aspect: 'character', limit: 5 });
    expect(hits.map((hit) => hit.uri)).toEqual(['/character/alice']);

    const queries = server.requests.filter((r) => r.path === `/collections/${collection}/points/query`);
    expect(queries).toHaveLength(3);
    const filter = { must: [{ key: 'aspect', match: { value: 'character' } }] };
    const common = { limit: 50, filter, with_payload: { include: ['record'] }, with_vector: false };
    const sparse = (terms: string[]) => ({ ...common, using: 'bm25', query: sparseVector(terms) });
    expect(queries.map((query) => query.body)).toEqual(
      expect.arrayContaining([
        { ...common, using: 'dense', query: vector },
        sparse(['alice']),
        sparse([`${NAME_TERM_PREFIX}alice`]),
      ]),
    );
    // Every write waits, so the next read sees it (the store's contract with Qdrant's `wait` flag).
    const batch = server.requests.find((r) => r.path === `/collections/${collection}/points/batch`);
    expect(batch?.query).toBe('?wait=true');
    await store.close();
  });

  it('rejects routes, fields and query shapes it does not emulate (never a silent success)', async () => {
    await expect(client.getCollections()).rejects.toMatchObject(notEmulated(501));
    const raw = await fetch(`${server.url}/collections/x/points/count`, { method: 'POST', body: '{}' });
    expect(raw.status).toBe(501);
    expect(await raw.json()).toMatchObject({ status: { error: expect.stringContaining('not emulated') } });
    const collection = newName('loud');
    await client.createCollection(collection, { vectors: { size: 1, distance: 'Dot' } });
    await expect(client.scroll(collection, { order_by: 'uri' })).rejects.toMatchObject(notEmulated(501));
    await expect(
      client.query(collection, { query: [1], filter: { must: [{ key: 'n', range: { gt: 1 } }] } }),
    ).rejects.toMatchObject(notEmulated(501));
    await expect(
      client.createCollection(newName('euclid'), { vectors: { size: 2, distance: 'Euclid' } }),
    ).rejects.toMatchObject(notEmulated(501));
  });

  it("answers a missing collection with 404 in Qdrant's error shape, a duplicate with 409", async () => {
    const missing = await fetch(`${server.url}/collections/absent_one`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      status: { error: "Not found: Collection `absent_one` doesn't exist!" },
      time: expect.any(Number),
    });
    expect(await client.collectionExists('absent_one')).toEqual({ exists: false });
    const collection = newName('dup');
    await client.createCollection(collection, { vectors: { size: 1, distance: 'Dot' } });
    await expect(
      client.createCollection(collection, { vectors: { size: 1, distance: 'Dot' } }),
    ).rejects.toMatchObject({ status: 409 });
  });

  it('loads every record across several scroll pages (the contract stays under one page of 256)', async () => {
    const collection = newName('pages');
    const store = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: STORE_CONTRACT_DIMENSIONS,
    });
    const uris = Array.from({ length: 600 }, (_, i) => `/character/c${String(i).padStart(3, '0')}`);
    await store.upsert(uris.map((uri, i) => makeItem(makeRecord(uri, { n: i }), null)));
    expect((await store.load()).records.map((stored) => stored.record.uri)).toEqual(uris);
    const scrolls = server.requests.filter((r) => r.path === `/collections/${collection}/points/scroll`);
    expect(scrolls).toHaveLength(3);
    await store.close();
  });

  it('resizes collections of another dense size through a staging collection, finishing an interrupted resize', async () => {
    const collection = newName('size');
    const first = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: STORE_CONTRACT_DIMENSIONS,
    });
    await first.upsert([makeItem(makeRecord('/character/alice', { name: 'Alice' }))]);
    await first.close();
    const sizeOf = async (name: string) =>
      ((await client.getCollection(name)).config.params.vectors as Record<string, { size: number }>)['dense']
        ?.size;
    const progress: string[] = [];
    const store = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: 16,
      log: (message) => progress.push(message),
    });
    expect(await sizeOf(collection)).toBe(16);
    expect(await sizeOf(`${collection}_memory`)).toBe(16);
    expect((await client.collectionExists(`${collection}_resize`)).exists).toBe(false);
    expect((await store.load()).records.map(({ record, hash }) => [record.uri, hash])).toEqual([
      ['/character/alice', ''],
    ]);
    expect(progress).toContain(`resized Qdrant collection ${collection} to 16 dimensions`);
    await store.close();
    // A resize interrupted after the old collection was deleted: only the staging collection holds the points, and
    // the next open moves them in.
    await client.createCollection(`${collection}_x_resize`, {
      vectors: { dense: { size: 16, distance: 'Cosine' } },
      sparse_vectors: { bm25: { modifier: 'idf' } },
    });
    const item = makeItem(makeRecord('/character/bob', { name: 'Bob' }), null);
    await client.upsert(`${collection}_x_resize`, { wait: true, points: [elementPoint(item)] });
    const resumed = await QdrantResourceStore.open({ client, collection: `${collection}_x`, dimensions: 16 });
    expect((await resumed.load()).records.map(({ record }) => record.uri)).toEqual(['/character/bob']);
    expect((await client.collectionExists(`${collection}_x_resize`)).exists).toBe(false);
    await resumed.close();
  });

  it('embeds each searched thread memory once when its collection is resized', async () => {
    const collection = newName('memsize');
    const first = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: STORE_CONTRACT_DIMENSIONS,
    });
    const memory = (id: string, text: string) => ({
      row: {
        id,
        threadId: 't',
        kind: 'episodic' as const,
        goalId: null,
        text,
        createdAt: '2026-11-25T00:00:00Z',
      },
      vector: contractEmbedder().embedOne(text),
    });
    await first.memory.upsertMemories([memory('m-1', 'alpha'), memory('m-2', 'beta')]);
    await first.close();
    const small = new LocalEmbedder(16);
    const embedded: string[] = [];
    const store = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: 16,
      embed: (texts) => {
        embedded.push(...texts);
        return small.embed(texts);
      },
    });
    expect(embedded.sort()).toEqual(['alpha', 'beta']);
    const hits = await store.memory.searchMemories({
      threadId: 't',
      text: 'zzz',
      vector: small.embedOne('alpha'),
      limit: 1,
    });
    expect(hits.map((hit) => hit.row.id)).toEqual(['m-1']);
    await store.close();
  });

  it('loses no point when the old size comes back after a resize crashed while staging fills or after it was committed', async () => {
    const collection = newName('revert');
    const first = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: STORE_CONTRACT_DIMENSIONS,
    });
    await first.upsert([
      makeItem(makeRecord('/character/alice', { name: 'Alice' })),
      makeItem(makeRecord('/character/bob', { name: 'Bob' })),
    ]);
    await first.close();
    // A resize to 16 crashed while filling the staging collection: it holds one of the two points; the old
    // collection is whole. The embedding model is then set back to the old size.
    await client.createCollection(`${collection}_resize`, {
      vectors: { dense: { size: 16, distance: 'Cosine' } },
      sparse_vectors: { bm25: { modifier: 'idf' } },
    });
    const partial = makeItem(makeRecord('/character/alice', { name: 'Alice' }), null);
    await client.upsert(`${collection}_resize`, { wait: true, points: [elementPoint(partial)] });
    const reverted = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: STORE_CONTRACT_DIMENSIONS,
    });
    const loaded = await reverted.load();
    expect(loaded.records.map(({ record }) => record.uri)).toEqual(['/character/alice', '/character/bob']);
    // Nothing was re-embedded away: the stored hashes are kept.
    expect(loaded.records.every(({ hash }) => hash !== '')).toBe(true);
    expect((await client.collectionExists(`${collection}_resize`)).exists).toBe(false);
    await reverted.close();

    // A resize to 16 crashed after the old collection was deleted and created again at 16 with one of the points:
    // staging (16) holds them all, and the old size coming back must finish from it, not drop it.
    const point = (uri: string, name: string) => elementPoint(makeItem(makeRecord(uri, { name }), null));
    await client.deleteCollection(collection);
    for (const name of [collection, `${collection}_resize`])
      await client.createCollection(name, {
        vectors: { dense: { size: 16, distance: 'Cosine' } },
        sparse_vectors: { bm25: { modifier: 'idf' } },
      });
    await client.upsert(`${collection}_resize`, {
      wait: true,
      points: [point('/character/alice', 'Alice'), point('/character/bob', 'Bob')],
    });
    await client.upsert(collection, { wait: true, points: [point('/character/alice', 'Alice')] });
    const finished = await QdrantResourceStore.open({
      client,
      collection,
      dimensions: STORE_CONTRACT_DIMENSIONS,
    });
    expect((await finished.load()).records.map(({ record }) => record.uri)).toEqual([
      '/character/alice',
      '/character/bob',
    ]);
    expect((await client.collectionExists(`${collection}_resize`)).exists).toBe(false);
    await finished.close();
  });

  describe('emulated Qdrant semantics', () => {
    const collection = newName('semantics');
    const sparse = (indices: number[], values: number[]) => ({ indices, values });
    // UUID ids that sort in the order 1 < 2 < 3 (the store only ever sends hyphenated UUIDs).
    const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    const [p1, p2, p3] = [uuid(1), uuid(2), uuid(3)];

    beforeAll(async () => {
      await client.createCollection(collection, {
        vectors: { dense: { size: 2, distance: 'Cosine' } },
        sparse_vectors: { bm25: { modifier: 'idf' } },
      });
      await client.upsert(collection, {
        points: [
          { id: p3, vector: { dense: [0, 1], bm25: sparse([9], [3]) }, payload: { tag: ['b', 'c'] } },
          {
            id: p1,
            vector: { dense: [2, 0], bm25: sparse([7], [1]) },
            payload: { tag: 'a', deep: { x: 1, y: 2 } },
          },
          { id: p2, vector: { dense: [0.8, 0.6], bm25: sparse([7, 9], [1, 1]) }, payload: { tag: 'b' } },
        ],
      });
    });

    it('scores dense by cosine and sparse by IDF-weighted dot product over shared indices', async () => {
      const dense = await client.query(collection, { query: [1, 0], using: 'dense' });
      expect(dense.points.map((p) => [p.id, p.score])).toEqual([
        [p1, 1],
        [p2, expect.closeTo(0.8, 10)],
        [p3, 0],
      ]);
      // N = 3 points, index 9 is non-zero in n = 2: idf = ln((3 - 2 + 0.5) / (2 + 0.5) + 1) = ln(1.6).
      const keyword = await client.query(collection, { query: sparse([9], [2]), using: 'bm25' });
      expect(keyword.points.map((p) => [p.id, p.score])).toEqual([
        [p3, expect.closeTo(6 * Math.log(1.6), 10)],
        [p2, expect.closeTo(2 * Math.log(1.6), 10)],
      ]);
    });

    it('fuses prefetches by RRF with k = 2 and zero-based ranks', async () => {
      const fused = await client.query(collection, {
        prefetch: [
          { query: [1, 0], using: 'dense', limit: 10 },
          { query: sparse([9], [1]), using: 'bm25', limit: 10 },
        ],
        query: { fusion: 'rrf' },
        with_payload: true,
      });
      // dense ranks p1, p2, p3; sparse ranks p3, p2: p3 → 1/4 + 1/2, p2 → 1/3 + 1/3, p1 → 1/2.
      expect(fused.points.map((p) => [p.id, p.score])).toEqual([
        [p3, expect.closeTo(0.75, 10)],
        [p2, expect.closeTo(2 / 3, 10)],
        [p1, expect.closeTo(0.5, 10)],
      ]);
      expect(fused.points[1]?.payload).toEqual({ tag: 'b' });
    });

    it('filters with must / should / must_not, value and any, arrays matching by element', async () => {
      const ids = async (filter: Record<string, unknown>) =>
        (await client.scroll(collection, { filter, with_payload: false })).points.map((p) => p.id);
      expect(await ids({ must: [{ key: 'tag', match: { value: 'b' } }] })).toEqual([p2, p3]);
      expect(await ids({ should: [{ key: 'tag', match: { any: ['a', 'c'] } }] })).toEqual([p1, p3]);
      expect(await ids({ must_not: [{ key: 'tag', match: { value: 'b' } }] })).toEqual([p1]);
      expect(await ids({ must: [{ key: 'deep.x', match: { value: 1 } }] })).toEqual([p1]);
    });

    it('scrolls by id from an inclusive offset, giving the next page start in next_page_offset', async () => {
      const first = await client.scroll(collection, { limit: 2, with_payload: false });
      expect(first.points.map((p) => p.id)).toEqual([p1, p2]);
      expect(first.next_page_offset).toBe(p3);
      const last = await client.scroll(collection, { limit: 2, offset: p3, with_payload: false });
      expect(last.points.map((p) => p.id)).toEqual([p3]);
      expect(last.next_page_offset ?? null).toBeNull();
    });

    it('selects payload by include / exclude with nested dot paths', async () => {
      const payloadOf = async (with_payload: unknown) =>
        (await client.retrieve(collection, { ids: [p1], with_payload: with_payload as boolean }))[0]?.payload;
      expect(await payloadOf({ exclude: ['deep.x'] })).toEqual({ tag: 'a', deep: { y: 2 } });
      expect(await payloadOf({ include: ['deep.y'] })).toEqual({ deep: { y: 2 } });
      expect(await payloadOf(['tag'])).toEqual({ tag: 'a' });
      expect(await payloadOf(false)).toBeNull();
    });
  });
});
