import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { LocalEmbedder, type MemoryUpsert, ResourceRepository, SEARCH_FORMAT } from '@novelrag/repository';
import {
  contractEmbedder,
  makeItem,
  makeRecord,
  root,
  seedCorpus,
  STORE_CONTRACT_DIMENSIONS,
} from './contract/fixtures';
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

  it('matches names from what it keeps in memory, following writes, and reads the names it lacks', async () => {
    const open = () => LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    const store = await open();
    const vector = contractEmbedder().embedOne('Zed');
    const other = makeItem(makeRecord('/character/b', { name: 'Other', motto: 'Zed' }), vector);
    await store.upsert([makeItem(makeRecord('/character/a', { name: 'Zed' }), vector), other]);
    expect((await store.search({ text: 'Zed', vector, limit: 2 })).map((hit) => hit.uri)).toEqual([
      '/character/a',
      '/character/b',
    ]);
    // Renamed: the exact-name boost follows (a stale name would still put /character/a first: it is a vector
    // candidate with the same vector).
    await store.upsert([makeItem(makeRecord('/character/a', { name: 'Quux' }), vector)]);
    expect((await store.search({ text: 'Zed', vector, limit: 2 })).map((hit) => hit.uri)).toEqual([
      '/character/b',
      '/character/a',
    ]);
    await store.delete(['/character/b']);
    expect((await store.search({ text: 'Zed', vector, limit: 2 })).map((hit) => hit.uri)).toEqual([
      '/character/a',
    ]);
    await store.close();
    // Searched before any load: the names are read from the table.
    const reopened = await open();
    expect((await reopened.search({ text: 'Quux', vector, limit: 2 }))[0]?.uri).toBe('/character/a');
    await reopened.close();
  });

  it('refuses bad vectors', async () => {
    const store = await LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    const record = makeRecord('/character/a', { name: 'a' });
    await expect(store.upsert([makeItem(record, [1, 2, 3])])).rejects.toThrow(/dimensions/);
    await expect(store.search({ text: 'a', vector: [1], limit: 1 })).rejects.toThrow(/dimensions/);
    await store.close();
    await expect(store.load()).rejects.toThrow(/closed/);
  });

  it('resizes a folder made for other dimensions: new tables named in store.json, memories re-embedded', async () => {
    const first = await LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    await first.upsert([makeItem(makeRecord('/character/alice', { name: 'Alice' }))]);
    const memory = (id: string, kind: 'episodic' | 'summary'): MemoryUpsert => ({
      row: {
        id,
        threadId: 't',
        kind,
        goalId: null,
        text: 'alpha beta',
        createdAt: '2026-11-25T00:00:00.000Z',
      },
      vector: kind === 'summary' ? null : contractEmbedder().embedOne('alpha beta'),
    });
    await first.memory.upsertMemories([memory('mem-1', 'episodic'), memory('mem-2', 'summary')]);
    await first.close();
    // A resize that died before its commit point left a half-filled table of the new size: it is filled again.
    const db = await lancedb.connect(join(dir, 'lance'));
    (await db.createTable('elements_8', [{ uri: 'leftover' }])).close();
    db.close();

    const progress: string[] = [];
    const small = new LocalEmbedder(8);
    const store = await LanceDbResourceStore.open({
      dir,
      dimensions: 8,
      embed: (texts) => small.embed(texts),
      log: (message) => progress.push(message),
    });
    expect(progress).toEqual([
      "resizing the store's vectors from 32 to 8 dimensions",
      'resized 1/1 elements',
      'resized 2/2 memories',
      "resized the store's vectors to 8 dimensions",
    ]);
    const info = JSON.parse(await readFile(join(dir, 'meta', 'store.json'), 'utf8')) as unknown;
    expect(info).toEqual({
      schemaVersion: 1,
      dimensions: 8,
      tables: { elements: 'elements_8', memories: 'memories_8' },
    });
    // The element waits for the repository to re-embed it (empty hash); the searched memory has its new vector.
    expect((await store.load()).records.map(({ record, hash }) => [record.uri, hash])).toEqual([
      ['/character/alice', ''],
    ]);
    const hits = await store.memory.searchMemories({
      threadId: 't',
      text: 'zzz',
      vector: small.embedOne('alpha beta'),
      limit: 5,
    });
    expect(hits.map((hit) => hit.row.id)).toEqual(['mem-1']);
    await store.close();
    const check = await lancedb.connect(join(dir, 'lance'));
    expect((await check.tableNames()).sort()).toEqual(['elements_8', 'memories_8']);
    check.close();
  });

  it('drops the tables a crashed resize left behind, keeping those store.json names', async () => {
    const first = await LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    await first.upsert([makeItem(makeRecord('/character/alice', { name: 'Alice' }))]);
    await first.close();
    // A resize to 8 died before its commit point (a half-filled elements_8), and one to 16 after it, before the old
    // tables were dropped (store.json names elements_16 / memories_16; elements and memories are left over).
    const db = await lancedb.connect(join(dir, 'lance'));
    (await db.createTable('elements_8', [{ uri: 'leftover' }])).close();
    db.close();
    const small = await LanceDbResourceStore.open({ dir, dimensions: 16 });
    await small.close();
    const db2 = await lancedb.connect(join(dir, 'lance'));
    (await db2.createTable('memories', [{ id: 'leftover' }])).close();
    db2.close();

    const reopened = await LanceDbResourceStore.open({ dir, dimensions: 16 });
    expect((await reopened.load()).records.map(({ record }) => record.uri)).toEqual(['/character/alice']);
    await reopened.close();
    const check = await lancedb.connect(join(dir, 'lance'));
    expect((await check.tableNames()).sort()).toEqual(['elements_16', 'memories_16']);
    check.close();
  });

  it('re-indexes a folder written by an older analysis when it opens (index rebuilt, terms rewritten)', async () => {
    const open = () => LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    const first = await ResourceRepository.open(await open(), contractEmbedder());
    await seedCorpus(first);
    await first.close();
    // What an older version left: the raw JSON as text under a 1-3 character n-gram index, hashes of another
    // format, no analysis marker.
    const db = await lancedb.connect(join(dir, 'lance'));
    const table = await db.openTable('elements');
    const rows = (await table.query().toArray()) as { record: string; vector: Iterable<number> }[];
    const old = rows.map((row) => ({
      ...row,
      vector: Array.from(row.vector),
      hash: 'old',
      text: row.record,
    }));
    await table.mergeInsert('uri').whenMatchedUpdateAll().execute(old);
    const ngram = lancedb.Index.fts({ baseTokenizer: 'ngram', ngramMinLength: 1, ngramMaxLength: 3 });
    await table.createIndex('text', { config: ngram, replace: true });
    table.close();
    db.close();
    await unlink(join(dir, 'meta', 'search.json'));
    const embedder = contractEmbedder();
    const reopened = await ResourceRepository.open(await open(), embedder);
    const marker = JSON.parse(await readFile(join(dir, 'meta', 'search.json'), 'utf8')) as unknown;
    expect(marker).toEqual({ format: SEARCH_FORMAT });
    const hits = await reopened.search('余归的师兄是谁？', { limit: 5 });
    expect(hits.map((hit) => hit.uri)).toEqual(
      expect.arrayContaining(['/character/lin_mo', '/character/yu_gui']),
    );
    expect((await reopened.search('Who is the Shadow?'))[0]?.uri).toBe('/character/shadow');
    await reopened.close();
  });

  it('opens a folder written before aspect logs and aspect deltas, and goes on from it', async () => {
    const open = () => LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS });
    const insert = (start: number, ids: string[]) => [
      { target: 'resource', location: root('character'), start, data: ids.map((id) => ({ id, name: id })) },
    ];
    let repo = await ResourceRepository.open(await open(), contractEmbedder());
    await repo.addAspect('character', {});
    await repo.apply(insert(0, ['a', 'b']));
    const snapshot = repo.snapshot();
    await repo.close();
    // The same data as older builds wrote it: aspects.json holds the whole list and names no log, and so does the
    // history document's journal.
    const meta = join(dir, 'meta');
    for (const name of await readdir(meta)) if (name.endsWith('.jsonl')) await unlink(join(meta, name));
    await writeFile(
      join(meta, 'aspects.json'),
      JSON.stringify({ schemaVersion: 1, value: snapshot.aspects }),
    );
    const undo = JSON.parse(await readFile(join(meta, 'undo.json'), 'utf8')) as {
      value: { journal: { aspects: unknown } };
    };
    undo.value.journal.aspects = snapshot.aspects;
    await writeFile(join(meta, 'undo.json'), JSON.stringify(undo));

    repo = await ResourceRepository.open(await open(), contractEmbedder());
    expect(repo.snapshot()).toEqual(snapshot);
    await repo.apply(insert(2, ['c']));
    await repo.close();
    repo = await ResourceRepository.open(await open(), contractEmbedder());
    expect(repo.find('/character')).toMatchObject({ rootIds: ['a', 'b', 'c'] });
    expect((await repo.search('c', { limit: 1 }))[0]?.uri).toBe('/character/c');
    await repo.close();
  });
});
