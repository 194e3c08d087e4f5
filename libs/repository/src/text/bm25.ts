/**
 * An in-memory BM25 index (k1 1.2, b 0.75, idf ln(1 + (N − n + 0.5)/(n + 0.5)), as Lucene and LanceDB use): the
 * reference store's keyword and name sides. Documents are term lists from the shared analyser.
 */
export class Bm25Index {
  private readonly docs = new Map<string, Map<string, number>>();
  private readonly lengths = new Map<string, number>();
  /** term → ids of the documents holding it (its size is the document frequency). */
  private readonly postings = new Map<string, Set<string>>();
  private totalLength = 0;

  set(id: string, terms: readonly string[]): void {
    this.delete(id);
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    this.docs.set(id, tf);
    this.lengths.set(id, terms.length);
    this.totalLength += terms.length;
    for (const term of tf.keys()) {
      const ids = this.postings.get(term) ?? new Set<string>();
      ids.add(id);
      this.postings.set(term, ids);
    }
  }

  delete(id: string): void {
    const tf = this.docs.get(id);
    if (!tf) return;
    this.docs.delete(id);
    this.totalLength -= this.lengths.get(id) ?? 0;
    this.lengths.delete(id);
    for (const term of tf.keys()) {
      const ids = this.postings.get(term);
      ids?.delete(id);
      if (ids?.size === 0) this.postings.delete(term);
    }
  }

  /** Ids with a positive score for the (unique) query terms, best first, ties by id; `accept` filters ids. */
  search(terms: readonly string[], limit: number, accept: (id: string) => boolean = () => true): string[] {
    const n = this.docs.size;
    if (n === 0) return [];
    const avg = this.totalLength / n || 1;
    const weights = [...new Set(terms)].flatMap((term) => {
      const df = this.postings.get(term)?.size ?? 0;
      return df === 0 ? [] : [{ term, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) }];
    });
    if (weights.length === 0) return [];
    const candidates = new Set<string>();
    for (const { term } of weights) for (const id of this.postings.get(term) ?? []) candidates.add(id);
    const scored: { id: string; score: number }[] = [];
    for (const id of candidates) {
      const tf = this.docs.get(id);
      if (!tf || !accept(id)) continue;
      const norm = 1.2 * (1 - 0.75 + (0.75 * (this.lengths.get(id) ?? 0)) / avg);
      let score = 0;
      for (const { term, idf } of weights) {
        const f = tf.get(term) ?? 0;
        if (f > 0) score += (idf * f * 2.2) / (f + norm);
      }
      if (score > 0) scored.push({ id, score });
    }
    return scored
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((hit) => hit.id);
  }
}
