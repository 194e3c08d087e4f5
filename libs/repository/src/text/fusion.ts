import type { ElementRecord } from '../model';
import type { SearchHit } from '../store.port';
import { analyze, matchKey, mentions, shingles } from './analyzer';
import { elementKeys, NAME_TERM_PREFIX } from './document';

/** The candidate lists of a hybrid search, each best first (uris). */
export interface HybridSides {
  /** BM25 over the analysed search text. */
  readonly keyword: readonly string[];
  /** Nearest by embedding. */
  readonly vector: readonly string[];
  /** BM25 over the names' terms. */
  readonly names: readonly string[];
  /** Exact id matches (candidates only: the exact boost comes from the names). */
  readonly exact?: readonly string[];
}

/**
 * Weighted Reciprocal Rank Fusion (Σ weight / (k + rank)) plus protected name matches: an element one of whose
 * names (or its id) equals the query gets `exact`, one whose name (or its pinyin) the query mentions gets
 * `mention`. Tuned on the retrieval evaluation (`npm run eval:retrieval -- --tune`).
 */
export interface FusionWeights {
  readonly k: number;
  readonly keyword: number;
  readonly vector: number;
  readonly names: number;
  readonly exact: number;
  readonly mention: number;
}

/** Chosen by `npm run eval:retrieval -- --tune` (grid search on half of the evaluation's questions). */
export const FUSION_WEIGHTS: FusionWeights = {
  k: 10,
  keyword: 1,
  vector: 0.5,
  names: 0.5,
  exact: 1,
  mention: 0.02,
};

/** How many candidates each side fetches for a final `limit` (the pool grows with the limit). */
export function candidateLimit(limit: number): number {
  return Math.min(Math.max(limit * 4, 50), 1000);
}

/** The query terms of the keyword side and of the name side (prefixed where both share one index). */
export function queryTerms(query: string): { text: string[]; names: string[]; prefixedNames: string[] } {
  const terms = analyze(query);
  const text = [...new Set(terms)];
  const names = [...new Set([...terms, ...shingles(terms)])];
  return { text, names, prefixedNames: names.map((term) => `${NAME_TERM_PREFIX}${term}`) };
}

/** 'exact' when a name or the id equals the query, 1 when the query mentions a name (pinyin included), else 0. */
export function nameMatch(queryKey: string, record: ElementRecord): NameMatch {
  return keysMatch(queryKey, elementKeys(record));
}

/** An element's match keys (`elementKeys`): exact ones (names, id) and all (pinyin too). */
export interface ElementKeys {
  readonly exact: ReadonlySet<string>;
  readonly all: ReadonlySet<string>;
}

/** `nameMatch` from an element's precomputed keys. */
export function keysMatch(queryKey: string, keys: ElementKeys): NameMatch {
  if (keys.exact.has(queryKey)) return 'exact';
  for (const key of keys.all) if (mentions(queryKey, key)) return 1;
  return 0;
}

/** A candidate's name match: 'exact', 1 when the query mentions one of its names, 0 when neither. */
export type NameMatch = 'exact' | number;

/**
 * The fused ranking from precomputed name matches (`matchOf` is asked once per candidate): best first, ties by
 * uri, at most `limit`.
 */
export function fuseWith(
  sides: HybridSides,
  matchOf: (uri: string) => NameMatch | undefined,
  limit: number,
  weights: FusionWeights = FUSION_WEIGHTS,
): SearchHit[] {
  const scores = new Map<string, number>();
  const add = (list: readonly string[] | undefined, weight: number): void => {
    list?.forEach((uri, index) => scores.set(uri, (scores.get(uri) ?? 0) + weight / (weights.k + index + 1)));
  };
  add(sides.keyword, weights.keyword);
  add(sides.vector, weights.vector);
  add(sides.names, weights.names);
  add(sides.exact, 0);
  const hits: SearchHit[] = [];
  for (const [uri, fused] of scores) {
    const match = matchOf(uri);
    if (match === undefined) continue;
    const bonus = match === 'exact' ? weights.exact : match * weights.mention;
    hits.push({ uri, score: fused + bonus });
  }
  return hits
    .sort((a, b) => b.score - a.score || (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
    .slice(0, Math.max(0, limit));
}

/** Looks a candidate's record up (a Map does). */
export interface RecordSource {
  get(uri: string): ElementRecord | undefined;
}

/** The fused ranking of a query: `fuseWith` with the name matches of `records` (which holds every candidate). */
export function fuse(
  query: string,
  sides: HybridSides,
  records: RecordSource,
  limit: number,
  weights: FusionWeights = FUSION_WEIGHTS,
): SearchHit[] {
  return fuseByKeys(
    query,
    sides,
    (uri) => {
      const record = records.get(uri);
      return record ? elementKeys(record) : undefined;
    },
    limit,
    weights,
  );
}

/** `fuse` from each candidate's match keys (undefined: the candidate is gone), for stores that cache the keys. */
export function fuseByKeys(
  query: string,
  sides: HybridSides,
  keysOf: (uri: string) => ElementKeys | undefined,
  limit: number,
  weights: FusionWeights = FUSION_WEIGHTS,
): SearchHit[] {
  const queryKey = matchKey(query);
  const matchOf = (uri: string): NameMatch | undefined => {
    const keys = keysOf(uri);
    if (!keys) return undefined;
    return queryKey.length > 0 ? keysMatch(queryKey, keys) : 0;
  };
  return fuseWith(sides, matchOf, limit, weights);
}
