import * as lancedb from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import { ID_KEY } from './lancedb-indexes';
import type { StoreMeta, StoreTables } from './store-meta';

/** Turns texts into vectors of the new size (the configured embedder); rejects on failure. */
export type ResizeEmbed = (texts: readonly string[]) => Promise<number[][]>;

export interface ResizeOptions {
  readonly db: lancedb.Connection;
  readonly meta: StoreMeta;
  readonly dimensions: number;
  readonly elementsSchema: Schema;
  readonly memoriesSchema: Schema;
  /** Re-embeds the searched memories (their readable `body`); without it they keep zeros (full-text only). */
  readonly embed?: ResizeEmbed;
  readonly log?: (message: string) => void;
  /** Rows read, embedded and written per step. Default 256. */
  readonly batch?: number;
}

type Row = Record<string, unknown>;

/**
 * Moves a data folder to another vector size (the embedding model changed to one of another size), never mixing
 * sizes in a table: new tables of the new size (`elements_<n>`, `memories_<n>`) are filled from the old ones a batch
 * at a time, then `store.json` names them (the commit point: a crash before it leaves the old tables in use, and the
 * half-filled new ones are dropped and refilled on the next open), then the old tables are dropped.
 *
 * Elements get zero vectors (never returned by vector search) and an empty hash, so the repository, which owns
 * their search text, re-embeds every one of them when it opens (in batches, with progress). Memories that had a
 * vector are re-embedded here from their text with `embed`.
 */
export async function resizeTables(options: ResizeOptions): Promise<StoreTables> {
  const { db, meta, dimensions, log } = options;
  const from = meta.tables();
  const to: StoreTables = { elements: `elements_${dimensions}`, memories: `memories_${dimensions}` };
  const existing = await db.tableNames();
  log?.(`resizing the store's vectors from ${meta.dimensions()} to ${dimensions} dimensions`);
  for (const name of [to.elements, to.memories]) if (existing.includes(name)) await db.dropTable(name);
  const zeros = (): number[] => new Array<number>(dimensions).fill(0);
  await copyInto(options, from.elements, to.elements, options.elementsSchema, 'elements', async (rows) =>
    rows.map((row) => ({ ...row, [ID_KEY]: String(row['id']).toLowerCase(), hash: '', vector: zeros() })),
  );
  await copyInto(options, from.memories, to.memories, options.memoriesSchema, 'memories', async (rows) => {
    const searched = rows.filter((row) => hasVector(row['vector']));
    const vectors =
      options.embed && searched.length > 0
        ? await options.embed(searched.map((row) => String(row['body'])))
        : [];
    if (vectors.length !== (options.embed ? searched.length : 0))
      throw new Error('The embedder returned a wrong number of vectors');
    const vectorOf = new Map(searched.map((row, index) => [row, vectors[index]]));
    return rows.map((row) => {
      const vector = vectorOf.get(row);
      if (vector && vector.length !== dimensions)
        throw new Error(`The embedder returned ${vector.length} dimensions, expected ${dimensions}`);
      return { ...row, vector: vector ?? zeros() };
    });
  });
  await meta.saveInfo(dimensions, to);
  const now = await db.tableNames();
  for (const name of [from.elements, from.memories]) if (now.includes(name)) await db.dropTable(name);
  log?.(`resized the store's vectors to ${dimensions} dimensions`);
  return to;
}

/** The names of the store's data tables, before (`elements`, `memories`) and after a resize (`elements_<n>`, …). */
const DATA_TABLE = /^(elements|memories)(_[0-9]+)?$/;

/**
 * Drops the data tables `store.json` does not name: what a resize that crashed left behind (the half-filled new
 * tables of one that died before its commit point, or the old tables of one that died after it). Never read again,
 * they would keep a full copy of the data on disk.
 */
export async function dropLeftoverTables(db: lancedb.Connection, tables: StoreTables): Promise<void> {
  const keep = new Set([tables.elements, tables.memories]);
  for (const name of await db.tableNames()) {
    if (DATA_TABLE.test(name) && !keep.has(name)) await db.dropTable(name);
  }
}

function hasVector(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  for (const x of value as Iterable<number>) if (x !== 0) return true;
  return false;
}

/** Creates `to` with `schema` and fills it from `from` (when it exists), `batch` rows at a time through `map`. */
async function copyInto(
  options: ResizeOptions,
  from: string,
  to: string,
  schema: Schema,
  what: string,
  map: (rows: Row[]) => Promise<Row[]>,
): Promise<void> {
  const { db, log } = options;
  const target = await db.createEmptyTable(to, schema);
  try {
    if (!(await db.tableNames()).includes(from)) return;
    const source = await db.openTable(from);
    try {
      const total = await source.countRows();
      const size = Math.max(1, options.batch ?? 256);
      let pending: Row[] = [];
      let copied = 0;
      const flush = async (): Promise<void> => {
        if (pending.length === 0) return;
        await target.add(await map(pending));
        copied += pending.length;
        pending = [];
        log?.(`resized ${copied}/${total} ${what}`);
      };
      for await (const batch of source.query()) {
        for (const row of batch.toArray() as { toJSON(): Row }[]) {
          pending.push(row.toJSON());
          if (pending.length >= size) await flush();
        }
      }
      await flush();
    } finally {
      source.close();
    }
  } finally {
    target.close();
  }
}
