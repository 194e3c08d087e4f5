/** A sparse vector as Qdrant takes it: unique u32 indices (sorted here) with their values. */
export interface SparseVector {
  readonly indices: number[];
  readonly values: number[];
}

/** FNV-1a (32 bit) over the UTF-8 bytes: a stable u32 index per term. */
export function termIndex(term: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(term, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The BM25-style sparse vector of analysed terms (the shared analyser's `documentTerms` or `queryTerms`): term
 * frequencies by hashed term index (Qdrant applies IDF with the collection's `modifier: 'idf'`). Hash collisions
 * add up, which only blurs two rare terms together.
 */
export function sparseVector(terms: readonly string[]): SparseVector {
  const counts = new Map<number, number>();
  for (const term of terms) {
    const index = termIndex(term);
    counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  const indices = [...counts.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => counts.get(index) as number) };
}
