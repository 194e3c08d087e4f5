import * as lancedb from '@lancedb/lancedb';

/** `IN (...)` lists are split so that a large delete or read never builds one giant filter. */
export const IN_CHUNK = 500;

/**
 * The full-text index of a column of analysed terms (space-separated): the shared analyser already segmented,
 * normalised and filtered them, so the index only splits on spaces and changes nothing. A fresh Index per use: the
 * native object is consumed by createIndex.
 */
export const ftsIndex = (): lancedb.Index =>
  lancedb.Index.fts({
    baseTokenizer: 'whitespace',
    lowercase: false,
    stem: false,
    removeStopWords: false,
    asciiFolding: false,
    withPosition: false,
  });

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
