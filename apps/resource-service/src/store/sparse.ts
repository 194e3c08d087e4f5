/** A sparse vector as Qdrant takes it: unique u32 indices (sorted here) with their values. */
export interface SparseVector {
  readonly indices: number[];
  readonly values: number[];
}

// Han, Hiragana, Katakana, Hangul: scripts written without spaces between words.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}]+/gu;

/**
 * Terms for keyword matching: lowercase (NFKC) runs of letters/digits for spaced scripts (`Azure`, `sect`, `17`);
 * for CJK runs, every character bigram (`余归宗` → `余归`, `归宗`), or the character itself for a one-character run.
 * Punctuation, quotes and operators are separators, never syntax.
 */
export function sparseTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(RUN)) {
    const run = match[0];
    const first = [...run][0] ?? '';
    if (!CJK.test(first)) {
      terms.push(run);
      continue;
    }
    const chars = [...run];
    if (chars.length === 1) terms.push(run);
    for (let i = 0; i + 1 < chars.length; i++) terms.push(`${chars[i]}${chars[i + 1]}`);
  }
  return terms;
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
 * The BM25-style sparse vector of a text: term frequencies by hashed term index (Qdrant applies IDF with the
 * collection's `modifier: 'idf'`). Hash collisions add up, which only blurs two rare terms together.
 */
export function sparseVector(text: string): SparseVector {
  const counts = new Map<number, number>();
  for (const term of sparseTerms(text)) {
    const index = termIndex(term);
    counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  const indices = [...counts.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => counts.get(index) as number) };
}
