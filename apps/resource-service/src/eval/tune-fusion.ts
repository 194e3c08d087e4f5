import {
  type Embedder,
  type ElementRecord,
  FUSION_WEIGHTS,
  type FusionWeights,
  fuseWith,
  type HybridSides,
  type InMemoryResourceStore,
  matchKey,
  nameMatch,
  type NameMatch,
} from '@novelrag/repository';
import { type Question, type QuestionResult, type Scores, scoresOf } from './retrieval-eval';

/**
 * Tunes the fusion weights on the evaluation: every question's candidate lists and name matches are computed once
 * (in-memory reference store), then each weight combination of a grid re-fuses them. The weights are chosen on all
 * questions; two-fold cross-validation (choose on alternate halves, score the other half) estimates how well
 * weights chosen this way carry over to questions they were not chosen on.
 */

export interface PreparedQuestion {
  readonly question: Question;
  readonly sides: HybridSides;
  readonly matches: ReadonlyMap<string, NameMatch>;
}

export async function prepareQuestions(
  store: InMemoryResourceStore,
  embedder: Embedder,
  records: ReadonlyMap<string, ElementRecord>,
  questions: readonly Question[],
): Promise<PreparedQuestion[]> {
  const out: PreparedQuestion[] = [];
  for (const question of questions) {
    const [vector] = await embedder.embed([question.q]);
    const sides = store.rankSides({ text: question.q, vector: vector ?? [], limit: 10 });
    const key = matchKey(question.q);
    const matches = new Map<string, NameMatch>();
    for (const uri of [...sides.keyword, ...sides.vector, ...sides.names, ...(sides.exact ?? [])]) {
      const record = records.get(uri);
      if (record && !matches.has(uri)) matches.set(uri, key.length > 0 ? nameMatch(key, record) : 0);
    }
    out.push({ question, sides, matches });
  }
  return out;
}

export function resultsWith(prepared: readonly PreparedQuestion[], weights: FusionWeights): QuestionResult[] {
  return prepared.map(({ question, sides, matches }) => {
    const top = fuseWith(sides, (uri) => matches.get(uri), 10, weights).map((hit) => hit.uri);
    const index = top.findIndex((uri) => question.answers.includes(uri));
    return { question, rank: index >= 0 ? index + 1 : null, top };
  });
}

/**
 * The grid searched: keyword weight fixed at 1, an exact name above any fused score, and a mentioned name always
 * worth something (the protected phrase match), how much is tuned.
 */
export function weightGrid(): FusionWeights[] {
  const grid: FusionWeights[] = [];
  for (const k of [10, 30, 60])
    for (const vector of [0, 0.25, 0.5, 1])
      for (const names of [0, 0.5, 1, 2])
        for (const mention of [0.02, 0.05, 0.1, 0.2])
          grid.push({ k, keyword: 1, vector, names, exact: 1, mention });
  return grid;
}

export interface TuneOutcome {
  readonly weights: FusionWeights;
  readonly chosen: Scores;
  readonly current: Scores;
  /** Two-fold cross-validation: each half scored with the weights chosen on the other half. */
  readonly crossValidated: Scores;
}

const objective = (s: Scores): number => s.recallAt10 + s.mrr;

function best(prepared: readonly PreparedQuestion[], grid: readonly FusionWeights[]): FusionWeights {
  let chosen = grid[0] ?? FUSION_WEIGHTS;
  let score = -1;
  for (const weights of grid) {
    const value = objective(scoresOf(resultsWith(prepared, weights)));
    if (value > score) {
      chosen = weights;
      score = value;
    }
  }
  return chosen;
}

/** The best weights of the grid on all questions (ties: the earlier grid entry) and the cross-validated figures. */
export function tuneFusion(prepared: readonly PreparedQuestion[], grid = weightGrid()): TuneOutcome {
  const even = prepared.filter((_, index) => index % 2 === 0);
  const odd = prepared.filter((_, index) => index % 2 === 1);
  const weights = best(prepared, grid);
  return {
    weights,
    chosen: scoresOf(resultsWith(prepared, weights)),
    current: scoresOf(resultsWith(prepared, FUSION_WEIGHTS)),
    crossValidated: scoresOf([...resultsWith(odd, best(even, grid)), ...resultsWith(even, best(odd, grid))]),
  };
}
