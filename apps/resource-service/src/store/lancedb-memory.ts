import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';
import {
  byCreation,
  candidateLimit,
  fuseMemoryHits,
  type MemoryFilter,
  type MemoryHit,
  type MemoryRow,
  type MemorySearchRequest,
  type MemoryStore,
  type MemoryUpsert,
  memoryRowKind,
  memoryTerms,
  SEARCH_FORMAT,
  SEARCHED_MEMORY_KINDS,
} from '@novelrag/repository';
import { readJsonFile, writeJsonFileAtomic } from './json-file';
import { chunks, ftsIndex, IN_CHUNK } from './lancedb-common';
import { sqlIn, sqlString } from './sql';

export function memoryTableSchema(dimensions: number): Schema {
  return new Schema([
    new Field('id', new Utf8(), false),
    new Field('thread_id', new Utf8(), false),
    new Field('kind', new Utf8(), false),
    new Field('goal_id', new Utf8(), true),
    new Field('created_at', new Utf8(), false),
    new Field('body', new Utf8(), false),
    new Field('text', new Utf8(), false),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
  ]);
}

const COLUMNS = ['id', 'thread_id', 'kind', 'goal_id', 'created_at', 'body'];

interface RawRow {
  id: unknown;
  thread_id: unknown;
  kind: unknown;
  goal_id: unknown;
  created_at: unknown;
  body: unknown;
}

function rowOf(raw: RawRow): MemoryRow {
  return {
    id: String(raw.id),
    threadId: String(raw.thread_id),
    kind: memoryRowKind(raw.kind),
    goalId: raw.goal_id === null || raw.goal_id === undefined ? null : String(raw.goal_id),
    createdAt: String(raw.created_at),
    text: String(raw.body),
  };
}

/**
 * Thread memories in the embedded store: the LanceDB table `memories` next to `elements` (one row per memory: id,
 * thread_id, kind, goal_id, created_at, the readable text `body`, its analysed terms `text` with a full-text index,
 * and the vector; zeros for the summary, which is never searched). Search = BM25 over the terms and cosine over the
 * vectors, both filtered to the thread's episodic and semantic rows, fused by `fuseMemoryHits`. When the analysis
 * changes (`SEARCH_FORMAT`), opening re-analyses every row and rebuilds the index. Filters use escaped literals only.
 */
export class LanceDbMemoryTable implements MemoryStore {
  private writes = 0;
  private closed = false;

  private constructor(
    private readonly table: lancedb.Table,
    private readonly dimensions: number,
  ) {}

  /** Opens (or creates) the table in `db`; `marker` records which analysis its index was built for. */
  static async open(
    db: lancedb.Connection,
    dimensions: number,
    marker: string,
    name: string,
  ): Promise<LanceDbMemoryTable> {
    const table = (await db.tableNames()).includes(name)
      ? await db.openTable(name)
      : await db.createEmptyTable(name, memoryTableSchema(dimensions));
    try {
      const vector = (await table.schema()).fields.find((field) => field.name === 'vector');
      const size = vector?.type instanceof FixedSizeList ? vector.type.listSize : undefined;
      if (size !== dimensions)
        throw new Error(`The LanceDB memory table holds vectors of size ${size}, not ${dimensions}`);
      const memory = new LanceDbMemoryTable(table, dimensions);
      await memory.ensureTextIndex(marker);
      return memory;
    } catch (err) {
      table.close();
      throw err;
    }
  }

  async upsertMemories(items: readonly MemoryUpsert[]): Promise<void> {
    this.assertOpen();
    const latest = [...new Map(items.map((item) => [item.row.id, item])).values()];
    if (latest.length === 0) return;
    const rows = latest.map(({ row, vector }) => {
      if (vector && vector.length !== this.dimensions)
        throw new Error(
          `Vector of memory ${row.id} has ${vector.length} dimensions, expected ${this.dimensions}`,
        );
      return this.columns(row, vector ?? new Array<number>(this.dimensions).fill(0));
    });
    await this.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    await this.afterWrite();
  }

  async listMemories(filter: MemoryFilter): Promise<MemoryRow[]> {
    this.assertOpen();
    const where = [`thread_id = ${sqlString(filter.threadId)}`];
    if (filter.goalId !== undefined) where.push(`goal_id = ${sqlString(filter.goalId)}`);
    const rows = await this.table.query().where(where.join(' AND ')).select(COLUMNS).toArray();
    return (rows as RawRow[]).map(rowOf).sort(byCreation);
  }

  async getMemory(id: string): Promise<MemoryRow | null> {
    this.assertOpen();
    const rows = await this.table
      .query()
      .where(`id = ${sqlString(id)}`)
      .select(COLUMNS)
      .limit(1)
      .toArray();
    const [row] = rows as RawRow[];
    return row ? rowOf(row) : null;
  }

  async deleteMemories(ids: readonly string[]): Promise<void> {
    this.assertOpen();
    const unique = [...new Set(ids)];
    if (unique.length === 0) return;
    for (const chunk of chunks(unique, IN_CHUNK)) await this.table.delete(sqlIn('id', chunk));
    await this.afterWrite();
  }

  async searchMemories(request: MemorySearchRequest): Promise<MemoryHit[]> {
    this.assertOpen();
    if (request.limit <= 0) return [];
    if (request.vector.length !== this.dimensions)
      throw new Error(
        `The query vector has ${request.vector.length} dimensions, expected ${this.dimensions}`,
      );
    const limit = candidateLimit(request.limit);
    const where = `thread_id = ${sqlString(request.threadId)} AND ${sqlIn('kind', SEARCHED_MEMORY_KINDS)}`;
    const terms = [...new Set(memoryTerms(request.text))];
    const [keyword, vector] = await Promise.all([
      terms.length > 0
        ? this.table
            .query()
            .fullTextSearch(new lancedb.MatchQuery(terms.join(' '), 'text'))
            .where(where)
            .select(COLUMNS)
            .limit(limit)
            .toArray()
        : Promise.resolve([]),
      this.table
        .query()
        .nearestTo(request.vector)
        .distanceType('cosine')
        .where(where)
        .select(COLUMNS)
        .limit(limit)
        .toArray(),
    ]);
    const rows = new Map<string, MemoryRow>();
    const ids = (list: RawRow[]): string[] =>
      list.map((raw) => {
        const row = rowOf(raw);
        rows.set(row.id, row);
        return row.id;
      });
    return fuseMemoryHits(
      { keyword: ids(keyword as RawRow[]), vector: ids(vector as RawRow[]) },
      rows,
      request.limit,
    );
  }

  /** Waits for a background compaction, then releases the table. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.background;
    this.table.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the LanceDB memory table is closed');
  }

  private columns(row: MemoryRow, vector: number[]): Record<string, unknown> {
    return {
      id: row.id,
      thread_id: row.threadId,
      kind: row.kind,
      goal_id: row.goalId,
      created_at: row.createdAt,
      body: row.text,
      text: memoryTerms(row.text).join(' '),
      vector,
    };
  }

  /** Builds the full-text index, re-analysing every row first when it was made for another analysis. */
  private async ensureTextIndex(marker: string): Promise<void> {
    const current = (await readJsonFile(marker)) as { format?: unknown } | null;
    const indices = await this.table.listIndices();
    const exists = indices.some((index) => index.indexType === 'FTS' && index.columns.includes('text'));
    if (exists && current?.format === SEARCH_FORMAT) return;
    const all = await this.table
      .query()
      .select([...COLUMNS, 'vector'])
      .toArray();
    const rows = (all as (RawRow & { vector: Iterable<number> })[]).map((raw) =>
      this.columns(rowOf(raw), Array.from(raw.vector)),
    );
    if (rows.length > 0) await this.table.mergeInsert('id').whenMatchedUpdateAll().execute(rows);
    await this.table.createIndex('text', { config: ftsIndex(), replace: true });
    await writeJsonFileAtomic(marker, { format: SEARCH_FORMAT });
  }

  private background: Promise<void> = Promise.resolve();

  /** Every 50 writes, compaction and index refresh run in the background (unindexed rows are searched anyway). */
  private async afterWrite(): Promise<void> {
    this.writes += 1;
    if (this.writes % 50 !== 0) return;
    await this.background;
    this.background = this.table
      .optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) })
      .then(() => undefined)
      .catch(() => undefined);
  }
}
