import type { JsonValue } from './json';
import type { ElementRecord } from './model';

/** Weights of the reference keyword scoring. An exact name/id match outranks any vector similarity (max 1). */
export const KEYWORD_WEIGHTS = {
  exactId: 10,
  exactValue: 8,
  idContains: 4,
  valueContains: 2,
  term: 0.5,
} as const;

function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase().trim();
}

function stringLeaves(value: JsonValue, out: string[], depth = 0): void {
  if (depth > 4) return;
  if (typeof value === 'string') out.push(normalise(value));
  else if (Array.isArray(value)) for (const item of value) stringLeaves(item, out, depth + 1);
  else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) stringLeaves(item, out, depth + 1);
  }
}

/**
 * Keyword relevance of a record for a query: exact id / exact string value (e.g. `name: 余归`) strongly boosted,
 * then substring matches on id and values, then per-term hits for multi-word queries. 0 when nothing matches.
 */
export function keywordScore(query: string, record: ElementRecord): number {
  const q = normalise(query);
  if (q.length === 0) return 0;
  const id = normalise(record.id);
  const values: string[] = [];
  stringLeaves(record.properties, values);
  let score = 0;
  if (id === q) score += KEYWORD_WEIGHTS.exactId;
  else if (id.includes(q)) score += KEYWORD_WEIGHTS.idContains;
  if (values.some((value) => value === q)) score += KEYWORD_WEIGHTS.exactValue;
  else if (values.some((value) => value.includes(q))) score += KEYWORD_WEIGHTS.valueContains;
  const terms = q.split(/\s+/).filter((term) => term.length > 0);
  if (terms.length > 1) {
    for (const term of terms) {
      if (id.includes(term) || values.some((value) => value.includes(term))) score += KEYWORD_WEIGHTS.term;
    }
  }
  return score;
}

/** Cosine similarity; 0 when either vector is zero or the dimensions differ. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
