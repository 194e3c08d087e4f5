import { type ElementRecord, keywordScore, type SearchHit } from '@novelrag/repository';

/** The usual Reciprocal Rank Fusion constant (Cormack et al.), for the stores that fuse here (Qdrant fuses itself). */
export const RRF_K = 60;

/** RRF scores of ranked uri lists (best first): Σ 1 / (k + rank), rank starting at 1. */
export function rrfScores(lists: readonly (readonly string[])[], k = RRF_K): Map<string, number> {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((uri, index) => scores.set(uri, (scores.get(uri) ?? 0) + 1 / (k + index + 1)));
  }
  return scores;
}

export interface FusedCandidate {
  readonly record: ElementRecord;
  /**
   * The fusion score of the keyword and vector candidate lists: RRF, at most about 2 / 61 here, on Qdrant's own scale
   * there (which may reach 1); an exact match's keyword score (≥ 8) outweighs it either way.
   */
  readonly fused: number;
}

/**
 * Final ranking shared by the stores: the fused score plus the reference keyword score (`keywordScore`), which
 * puts an exact id or property match (≥ 8) above any fused score and substring matches above plain similarity.
 * Best first, ties by uri, at most `limit`.
 */
export function rankCandidates(
  query: string,
  candidates: readonly FusedCandidate[],
  limit: number,
): SearchHit[] {
  return candidates
    .map(({ record, fused }) => ({ uri: record.uri, score: fused + keywordScore(query, record) }))
    .sort((a, b) => b.score - a.score || (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
    .slice(0, Math.max(0, limit));
}

/** How many candidates each side of a hybrid search fetches for a final `limit`. */
export function candidateLimit(limit: number): number {
  return Math.min(Math.max(limit * 4, 50), 1000);
}
