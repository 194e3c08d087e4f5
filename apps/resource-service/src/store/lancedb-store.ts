import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';
import {
  buildSegments,
  candidateLimit,
  documentTerms,
  ElementRecord,
  fuseByKeys,
  parseUri,
  prefixedTerms,
  queryTerms,
  type AspectsDelta,
  type ResourceStore,
  type SearchHit,
  type SearchRequest,
  type SegmentsRequest,
  type SegmentsResult,
  type StoreState,
  type StoredRecord,
  type UpsertItem,
} from '@novelrag/repository';
import { chunks, IN_CHUNK } from './lancedb-common';
import { LanceDbMemoryTable, memoryTableSchema } from './lancedb-memory';
import { ANN_MIN_ROWS, ensureIdKey, ensureIndexes, ID_KEY, maintainVectorIndex } from './lancedb-indexes';
import { dropLeftoverTables, resizeTables, type ResizeEmbed } from './lancedb-resize';
import { NameCache } from './lancedb-names';
import { StoreMeta } from './store-meta';
import { sqlIn, sqlString } from './sql';

export interface LanceDbStoreOptions {
  /** The data folder (created when absent): `lance/` holds the table, `meta/` the JSON documents. */
  readonly dir: string;
  /**
   * The embedder's vector size. A folder holding another size is resized when it opens (`resizeTables`): every
   * element is then re-embedded by the repository, and the searched memories here with `embed`.
   */
  readonly dimensions: number;
  /** The embedder, to re-embed thread memories when the vector size changes (without it they keep zeros). */
  readonly embed?: ResizeEmbed;
  /** Progress of long work when opening (a resize). */
  readonly log?: (message: string) => void;
  /** Compact and re-index after this many writes (new rows are searchable before that anyway). Default 50. */
  readonly optimizeEvery?: number;
  /** Train the vector (IVF) index once the table holds this many rows; below it vector search scans. Default 10 000. */
  readonly annMinRows?: number;
}

function tableSchema(dimensions: number): Schema {
  return new Schema([
    new Field('uri', new Utf8(), false),
    new Field('aspect', new Utf8(), false),
    new Field('parent_uri', new Utf8(), true),
    new Field('id', new Utf8(), false),
    new Field(ID_KEY, new Utf8(), true),
    new Field('record', new Utf8(), false),
    new Field('text', new Utf8(), false),
    new Field('hash', new Utf8(), false),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ]);
}

/** Records which analysis the memory table's full-text index was built for (an older folder is re-indexed on open). */
const MEMORY_SEARCH_FILE = 'memory-search.json';

function parseRecord(json: unknown): ElementRecord {
  return ElementRecord.parse(JSON.parse(String(json)));
}

/**
 * The embedded ResourceStore: one LanceDB table `elements` (`elements_<size>` after a resize, see `resizeTables`;
 * one row per element: uri, aspect, parent_uri, id, the record as JSON, the analysed terms with a full-text index,
 * hash, vector) plus the undo log and backlog as small JSON files written atomically and the aspect list as a file
 * with a log of changes (see `StoreMeta`).
 * Filters are built with escaped literals only.
 *
 * Search: full-text BM25 over the keyword terms and over the (prefixed) name terms, cosine vector search and an
 * exact-id lookup, each filtered by aspect and fetching the uris of `candidateLimit(limit)` rows, fused by the shared
 * `fuseByKeys` with the candidates' names from memory (`NameCache`).
 * Indexes (see `lancedb-indexes.ts`): scalar ones on the filtered columns, the full-text one, and an IVF vector
 * index once the table is large; rows no index covers yet are scanned beside them, so writes are searchable at once,
 * and `optimize()` folds them into the indexes every `optimizeEvery` writes.
 *
 * Thread memories live in a second table of the same database (`LanceDbMemoryTable`, `memory`).
 *
 * One process owns a data folder at a time. Methods reject with LanceDB's or the file system's errors.
 */
export class LanceDbResourceStore implements ResourceStore {
  private writes = 0;
  private closed = false;
  private readonly names = new NameCache();

  private constructor(
    private readonly db: lancedb.Connection,
    private readonly table: lancedb.Table,
    private readonly meta: StoreMeta,
    private readonly dimensions: number,
    private readonly optimizeEvery: number,
    readonly memory: LanceDbMemoryTable,
    private readonly metaDir: string,
    private readonly annMinRows: number,
  ) {}

  /** Opens (or creates) the store in `options.dir`, resizing a folder made for other dimensions. */
  static async open(options: LanceDbStoreOptions): Promise<LanceDbResourceStore> {
    const { dir, dimensions } = options;
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError('dimensions must be a positive integer');
    await mkdir(dir, { recursive: true });
    const meta = await StoreMeta.open(join(dir, 'meta'), dimensions);
    const db = await lancedb.connect(join(dir, 'lance'));
    try {
      const tables =
        meta.dimensions() === dimensions
          ? meta.tables()
          : await resizeTables({
              db,
              meta,
              dimensions,
              elementsSchema: tableSchema(dimensions),
              memoriesSchema: memoryTableSchema(dimensions),
              ...(options.embed ? { embed: options.embed } : {}),
              ...(options.log ? { log: options.log } : {}),
            });
      await dropLeftoverTables(db, tables);
      const table = (await db.tableNames()).includes(tables.elements)
        ? await db.openTable(tables.elements)
        : await db.createEmptyTable(tables.elements, tableSchema(dimensions));
      const vector = (await table.schema()).fields.find((field) => field.name === 'vector');
      const size = vector?.type instanceof FixedSizeList ? vector.type.listSize : undefined;
      if (size !== dimensions) {
        table.close();
        throw new Error(`The LanceDB table in ${dir} holds vectors of size ${size}, not ${dimensions}`);
      }
      await ensureIdKey(table);
      await ensureIndexes(table, join(dir, 'meta'));
      const memory = await LanceDbMemoryTable.open(
        db,
        dimensions,
        join(dir, 'meta', MEMORY_SEARCH_FILE),
        tables.memories,
      );
      const store = new LanceDbResourceStore(
        db,
        table,
        meta,
        dimensions,
        options.optimizeEvery ?? 50,
        memory,
        join(dir, 'meta'),
        options.annMinRows ?? ANN_MIN_ROWS,
      );
      // A folder that grew past the threshold without an index (or before this version) gets it in the background.
      store.maintainInBackground(() => store.vectorIndex());
      return store;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  async load(): Promise<StoreState> {
    this.assertOpen();
    // Batch by batch, column by column: `toArray` made a row object of every element first, all held at once
    // beside the parsed records.
    const records: StoredRecord[] = [];
    for await (const batch of this.table.query().select(['record', 'hash'])) {
      const json = batch.getChild('record');
      const hashes = batch.getChild('hash');
      for (let row = 0; row < batch.numRows; row++) {
        const record = parseRecord(json?.get(row));
        this.names.set(record);
        records.push({ record, hash: String(hashes?.get(row)) });
      }
    }
    records.sort((a, b) => (a.record.uri < b.record.uri ? -1 : a.record.uri > b.record.uri ? 1 : 0));
    return { aspects: this.meta.aspects(), records, undo: this.meta.undo(), backlog: this.meta.backlog() };
  }

  async upsert(items: readonly UpsertItem[]): Promise<void> {
    this.assertOpen();
    const latest = new Map(items.map((item) => [item.record.uri, item]));
    if (latest.size === 0) return;
    for (const item of latest.values()) {
      if (item.vector && item.vector.length !== this.dimensions) {
        throw new Error(
          `Vector of ${item.record.uri} has ${item.vector.length} dimensions, expected ${this.dimensions}`,
        );
      }
    }
    const keep = [...latest.values()].filter((item) => item.vector === null).map((item) => item.record.uri);
    const previous = await this.vectorsOf(keep);
    // Columns: uri, aspect, parent_uri, id, record (JSON), text, hash, vector (see tableSchema).
    const rows: Record<string, unknown>[] = [...latest.values()].map(({ record, hash, text, vector }) => ({
      uri: record.uri,
      aspect: record.aspect,
      parent_uri: record.parentUri,
      id: record.id,
      [ID_KEY]: record.id.toLowerCase(),
      record: JSON.stringify(record),
      text: prefixedTerms(documentTerms(record, text)).join(' '),
      hash,
      // A record never stored before has no vector to keep: zeros are never returned by cosine search.
      vector: vector ?? previous.get(record.uri) ?? new Array<number>(this.dimensions).fill(0),
    }));
    await this.table.mergeInsert('uri').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    for (const { record } of latest.values()) this.names.set(record);
    await this.afterWrite();
  }

  async delete(uris: readonly string[]): Promise<void> {
    this.assertOpen();
    const unique = [...new Set(uris)];
    if (unique.length === 0) return;
    for (const chunk of chunks(unique, IN_CHUNK)) await this.table.delete(sqlIn('uri', chunk));
    for (const uri of unique) this.names.delete(uri);
    await this.afterWrite();
  }

  async updateAspects(delta: AspectsDelta): Promise<void> {
    this.assertOpen();
    await this.meta.updateAspects(delta);
  }

  async saveUndo(json: unknown): Promise<void> {
    this.assertOpen();
    await this.meta.saveUndo(json);
  }

  async saveBacklog(json: unknown): Promise<void> {
    this.assertOpen();
    await this.meta.saveBacklog(json);
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    this.assertOpen();
    if (request.limit <= 0) return [];
    if (request.vector.length !== this.dimensions) {
      throw new Error(
        `The query vector has ${request.vector.length} dimensions, expected ${this.dimensions}`,
      );
    }
    const limit = candidateLimit(request.limit);
    const aspect = request.aspect !== undefined ? `aspect = ${sqlString(request.aspect)}` : undefined;
    // The builders mutate in place and return themselves.
    const filtered = (query: lancedb.Query | lancedb.VectorQuery): lancedb.Query | lancedb.VectorQuery => {
      if (aspect) query.where(aspect);
      query.select(['uri']).limit(limit);
      return query;
    };
    const text = request.text.trim();
    const terms = queryTerms(text);
    // MatchQuery treats the text as plain terms: no phrase or boolean syntax to trip over quotes.
    const fullText = (list: readonly string[]) =>
      list.length > 0
        ? filtered(
            this.table.query().fullTextSearch(new lancedb.MatchQuery(list.join(' '), 'text')),
          ).toArray()
        : Promise.resolve([]);
    const [keyword, names, vector, exact] = await Promise.all([
      fullText(terms.text),
      fullText(terms.prefixedNames),
      filtered(this.table.query().nearestTo(request.vector).distanceType('cosine')).toArray(),
      text.length > 0
        ? filtered(this.table.query().where(`${ID_KEY} = ${sqlString(text.toLowerCase())}`)).toArray()
        : Promise.resolve([]),
    ]);
    const uris = (rows: { uri: unknown }[]): string[] => rows.map((row) => String(row.uri));
    const sides = { keyword: uris(keyword), names: uris(names), vector: uris(vector), exact: uris(exact) };
    const candidates = [...sides.keyword, ...sides.names, ...sides.vector, ...sides.exact];
    const keysOf = await this.names.keysOf(candidates, async (missing) =>
      (await this.recordsOf(missing)).values(),
    );
    return fuseByKeys(request.text, sides, keysOf, request.limit);
  }

  async segments(request: SegmentsRequest): Promise<SegmentsResult> {
    this.assertOpen();
    const excluded = new Set(request.excludedUris ?? []);
    const wanted = new Set<string>();
    for (const { uri } of request.segments) {
      if (excluded.has(uri)) continue;
      try {
        if (parseUri(uri).kind === 'element') wanted.add(uri);
      } catch {
        // buildSegments reports malformed uris as missing.
      }
    }
    const records = await this.recordsOf([...wanted]);
    return buildSegments({ aspects: this.meta.aspectsView(), record: (uri) => records.get(uri) }, request);
  }

  /** Compacts the table and brings every index up to date (also done in the background every `optimizeEvery` writes). */
  async optimize(): Promise<void> {
    this.assertOpen();
    await this.background;
    await this.compact();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.background;
    this.closed = true;
    await this.memory.close();
    this.table.close();
    this.db.close();
  }

  private background: Promise<void> = Promise.resolve();
  private optimizing = false;

  /** The stored records of `uris` (key lookups on the `uri` index), by uri. */
  private async recordsOf(uris: readonly string[]): Promise<Map<string, ElementRecord>> {
    const records = new Map<string, ElementRecord>();
    for (const chunk of chunks(uris, IN_CHUNK)) {
      const rows = await this.table.query().where(sqlIn('uri', chunk)).select(['record']).toArray();
      for (const row of rows as { record: unknown }[]) {
        const record = parseRecord(row.record);
        records.set(record.uri, record);
      }
    }
    return records;
  }

  private async vectorsOf(uris: readonly string[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    for (const chunk of chunks(uris, IN_CHUNK)) {
      const rows = await this.table.query().where(sqlIn('uri', chunk)).select(['uri', 'vector']).toArray();
      for (const row of rows as { uri: unknown; vector: Iterable<number> }[]) {
        out.set(String(row.uri), Array.from(row.vector));
      }
    }
    return out;
  }

  /**
   * Every `optimizeEvery` writes, compaction and index refresh run in the background (one at a time) instead of
   * inside the write: unindexed rows are searched anyway, so nothing waits for it (the benchmark saw 1.3 s p99 write
   * stalls at 100k elements when it ran inline).
   */
  private async afterWrite(): Promise<void> {
    this.writes += 1;
    if (this.writes % this.optimizeEvery === 0) this.maintainInBackground(() => this.compact());
  }

  /** Runs `work` in the background unless maintenance is already running; its failure is retried next time. */
  private maintainInBackground(work: () => Promise<unknown>): void {
    if (this.optimizing) return;
    this.optimizing = true;
    this.background = work()
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => {
        this.optimizing = false;
      });
  }

  /**
   * Folds new rows into every index and drops versions older than a minute (the default keeps 7 days: 782 MB on
   * disk for 100k elements), then trains the vector index when the table crossed its threshold.
   */
  private async compact(): Promise<void> {
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
    await this.vectorIndex();
  }

  private vectorIndex(): Promise<boolean> {
    return maintainVectorIndex(this.table, this.metaDir, this.annMinRows);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('LanceDbResourceStore is closed');
  }
}
