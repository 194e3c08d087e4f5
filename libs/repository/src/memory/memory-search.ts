import { analyze, fuseWith } from '../text';
import type { MemoryHit, MemoryRow } from './memory-store.port';

/** The analysed terms of a memory's text or of a query (same analysis as the repository's keyword side). */
export function memoryTerms(text: string): string[] {
  return analyze(text);
}

/** The candidate lists of a memory search (row ids, best first). */
export interface MemorySides {
  readonly keyword: readonly string[];
  readonly vector: readonly string[];
}

/**
 * The fused ranking of a memory search: the repository's weighted RRF over the keyword and vector sides (no name
 * side: memories have no names). `rows` holds every candidate; best first, ties by id, at most `limit`.
 */
export function fuseMemoryHits(
  sides: MemorySides,
  rows: ReadonlyMap<string, MemoryRow>,
  limit: number,
): MemoryHit[] {
  const matchOf = (id: string) => (rows.has(id) ? 0 : undefined);
  const hits = fuseWith({ keyword: sides.keyword, vector: sides.vector, names: [] }, matchOf, limit);
  return hits.flatMap(({ uri, score }) => {
    const row = rows.get(uri);
    return row ? [{ row, score }] : [];
  });
}
