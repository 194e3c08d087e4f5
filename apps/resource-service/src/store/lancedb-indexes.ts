import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { SEARCH_FORMAT } from '@novelrag/repository';
import { readJsonFile, writeJsonFileAtomic } from './json-file';

/**
 * The indexes of the LanceDB `elements` table and how they follow the data:
 * - scalar indexes on the filtered columns (`uri`: upserts, deletes and segments are key lookups; `id_key`: the
 *   exact-id side of the search; `aspect`: the search filter; `parent_uri`), created once, even on an empty table;
 * - the full-text index on `text` (the analysed terms), rebuilt when the analysis format changes;
 * - an IVF vector index (cosine) once the table holds `annMinRows` rows, retrained when the table has grown
 *   `ANN_RETRAIN_GROWTH` times past the size it was trained on (its partitions were sized for the old count).
 * `table.optimize()` folds rows written since into every index; rows no index covers yet are still searched (LanceDB
 * scans them beside the index), so a write is visible at once. Vector queries filter before the nearest-neighbour
 * search (LanceDB's default prefilter), so an aspect filter never empties the candidate list.
 */

/** The lowercased element id, indexed for the exact-id side (SQL `lower(id)` on an older table). */
export const ID_KEY = 'id_key';
/** Below this many rows a vector search scans every vector (a few ms at 10k); default of `annMinRows`. */
export const ANN_MIN_ROWS = 10_000;
const ANN_RETRAIN_GROWTH = 4;

/** Records which analysis the full-text index was built for (an older folder is re-indexed on open). */
const SEARCH_FILE = 'search.json';
/** Records how many rows the vector index was trained on. */
const VECTOR_FILE = 'vector-index.json';

// A fresh Index per use: the native object is consumed by createIndex.
/**
 * The `text` column holds the element's analysed terms (`prefixedTerms`, space-separated): the shared analyser
 * already segmented, normalised and filtered them, so the index only splits on spaces and changes nothing.
 */
const ftsIndex = (): lancedb.Index =>
  lancedb.Index.fts({
    baseTokenizer: 'whitespace',
    lowercase: false,
    stem: false,
    removeStopWords: false,
    asciiFolding: false,
    withPosition: false,
  });

const SCALAR_INDEXES: readonly (readonly [column: string, make: () => lancedb.Index])[] = [
  ['uri', () => lancedb.Index.btree()],
  [ID_KEY, () => lancedb.Index.btree()],
  ['parent_uri', () => lancedb.Index.btree()],
  ['aspect', () => lancedb.Index.bitmap()],
];

async function indexedColumns(table: lancedb.Table, type?: string): Promise<Set<string>> {
  const indices = await table.listIndices();
  return new Set(
    indices
      .filter((index) => type === undefined || index.indexType === type)
      .flatMap((index) => index.columns),
  );
}

/** Adds the `id_key` column to a table written before it existed (computed from `id`). */
export async function ensureIdKey(table: lancedb.Table): Promise<void> {
  const schema = await table.schema();
  if (schema.fields.some((field) => field.name === ID_KEY)) return;
  await table.addColumns([{ name: ID_KEY, valueSql: 'lower(id)' }]);
}

/**
 * Creates the scalar indexes that are missing, and the full-text index when it is missing or was made for another
 * analysis (the rows' terms are then rewritten by the repository, whose search hashes changed with the format).
 */
export async function ensureIndexes(table: lancedb.Table, metaDir: string): Promise<void> {
  const indexed = await indexedColumns(table);
  for (const [column, make] of SCALAR_INDEXES) {
    if (!indexed.has(column)) await table.createIndex(column, { config: make() });
  }
  const marker = join(metaDir, SEARCH_FILE);
  const current = (await readJsonFile(marker)) as { format?: unknown } | null;
  const hasText = (await indexedColumns(table, 'FTS')).has('text');
  if (hasText && current?.format === SEARCH_FORMAT) return;
  await table.createIndex('text', { config: ftsIndex(), replace: true });
  await writeJsonFileAtomic(marker, { format: SEARCH_FORMAT });
}

/**
 * Trains the vector index once the table holds `minRows` rows, and again once it grew `ANN_RETRAIN_GROWTH` times
 * past its last training. Returns whether it (re)trained. Meant for the background maintenance, not a write path.
 */
export async function maintainVectorIndex(
  table: lancedb.Table,
  metaDir: string,
  minRows: number,
): Promise<boolean> {
  const rows = await table.countRows();
  if (rows < minRows) return false;
  // Rows still waiting for their vector after a resize (empty hash, zero vector) would train partitions on zeros.
  if ((await table.countRows("hash = ''")) > 0) return false;
  const marker = join(metaDir, VECTOR_FILE);
  const trained = (await readJsonFile(marker)) as { rows?: unknown } | null;
  const trainedRows = typeof trained?.rows === 'number' ? trained.rows : 0;
  const exists = (await indexedColumns(table)).has('vector');
  if (exists && trainedRows > 0 && rows < trainedRows * ANN_RETRAIN_GROWTH) return false;
  // IVF_FLAT keeps exact vectors (no quantisation error to refine away); √rows partitions, 20 probed per query.
  await table.createIndex('vector', {
    config: lancedb.Index.ivfFlat({ distanceType: 'cosine' }),
    replace: true,
  });
  await writeJsonFileAtomic(marker, { rows });
  return true;
}
