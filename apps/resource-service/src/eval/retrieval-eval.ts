import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DumpedElement, type Embedder, ResourceRepository, type ResourceStore } from '@novelrag/repository';

/**
 * The retrieval evaluation: a bilingual fixture world (data files, one per aspect) and questions a writer would ask
 * about it, each with the elements whose records answer it. A question counts as found at k when any of its
 * answer elements is among the first k hits; its reciprocal rank is 1/rank of the first answer within the first 10
 * (0 beyond). Shared by `npm run eval:retrieval` and the tests that hold the floors.
 */

export const QUESTION_KINDS = [
  'exact',
  'attribute',
  'alias',
  'relation',
  'multi-hop',
  'cross-language',
] as const;
export const QUESTION_LANGS = ['zh', 'en'] as const;

export const Question = z.object({
  kind: z.enum(QUESTION_KINDS),
  lang: z.enum(QUESTION_LANGS),
  q: z.string().min(1),
  answers: z.array(z.string().startsWith('/')).min(1),
});
export type Question = z.infer<typeof Question>;

const AspectConfigs = z.record(
  z.string(),
  z.object({ description: z.string(), children_keys: z.array(z.string()) }),
);

export interface FixtureWorld {
  readonly aspects: z.infer<typeof AspectConfigs>;
  readonly elements: Record<string, DumpedElement[]>;
}

/** The repository's `eval/retrieval` folder (world/ and questions.json). */
export function defaultEvalDir(repoRoot: string): string {
  return join(repoRoot, 'eval', 'retrieval');
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** Reads `world/aspects.json` and `world/<aspect>.json` for every aspect; throws on a missing or malformed file. */
export function loadWorld(dir: string): FixtureWorld {
  const aspects = AspectConfigs.parse(readJson(join(dir, 'world', 'aspects.json')));
  const elements: Record<string, DumpedElement[]> = {};
  for (const name of Object.keys(aspects)) {
    elements[name] = z.array(DumpedElement).parse(readJson(join(dir, 'world', `${name}.json`)));
  }
  return { aspects, elements };
}

export function loadQuestions(dir: string): Question[] {
  return z.array(Question).parse(readJson(join(dir, 'questions.json')));
}

/** Every uri of the world (children included), to check that the questions' answers exist. */
export function worldUris(world: FixtureWorld): Set<string> {
  const out = new Set<string>();
  const walk = (prefix: string, element: DumpedElement, childKeys: readonly string[]): void => {
    const uri = `${prefix}/${element.id}`;
    out.add(uri);
    for (const key of childKeys) {
      for (const child of (element[key] as DumpedElement[] | undefined) ?? []) walk(uri, child, childKeys);
    }
  };
  for (const [aspect, config] of Object.entries(world.aspects)) {
    for (const element of world.elements[aspect] ?? []) walk(`/${aspect}`, element, config.children_keys);
  }
  return out;
}

/** Writes the world into an empty repository (aspects first, then all elements in one write). */
export async function seedWorld(repo: ResourceRepository, world: FixtureWorld): Promise<void> {
  for (const [name, config] of Object.entries(world.aspects)) await repo.addAspect(name, config);
  await repo.apply(
    Object.keys(world.aspects).map((aspect) => ({
      target: 'resource',
      location: { resource_uri: `/${aspect}`, children_key: null },
      data: world.elements[aspect] ?? [],
    })),
  );
}

export interface QuestionResult {
  readonly question: Question;
  /** 1-based rank of the first answer among the hits, or null when none was returned. */
  readonly rank: number | null;
  readonly top: string[];
}

/** A question's result for the URIs returned, best first (another ranking of the same hits, e.g. reranked). */
export function resultOf(question: Question, top: string[]): QuestionResult {
  const index = top.findIndex((uri) => question.answers.includes(uri));
  return { question, rank: index >= 0 ? index + 1 : null, top };
}

/** Runs every question through `repo.search` (limit 10). */
export async function askAll(
  repo: ResourceRepository,
  questions: readonly Question[],
): Promise<QuestionResult[]> {
  const out: QuestionResult[] = [];
  for (const question of questions) {
    const hits = await repo.search(question.q, { limit: 10 });
    out.push(
      resultOf(
        question,
        hits.map((hit) => hit.uri),
      ),
    );
  }
  return out;
}

export interface Scores {
  readonly count: number;
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly mrr: number;
}

export function scoresOf(results: readonly QuestionResult[]): Scores {
  const n = results.length;
  const within = (k: number) => results.filter((r) => r.rank !== null && r.rank <= k).length / (n || 1);
  const mrr = results.reduce((sum, r) => sum + (r.rank !== null && r.rank <= 10 ? 1 / r.rank : 0), 0);
  return { count: n, recallAt5: within(5), recallAt10: within(10), mrr: mrr / (n || 1) };
}

export interface Report {
  readonly overall: Scores;
  readonly byKind: Record<string, Scores>;
  readonly byLang: Record<string, Scores>;
  readonly misses: QuestionResult[];
}

export function report(results: readonly QuestionResult[]): Report {
  const group = (key: (r: QuestionResult) => string, keys: readonly string[]) =>
    Object.fromEntries(keys.map((k) => [k, scoresOf(results.filter((r) => key(r) === k))]));
  return {
    overall: scoresOf(results),
    byKind: group((r) => r.question.kind, QUESTION_KINDS),
    byLang: group((r) => r.question.lang, QUESTION_LANGS),
    misses: results.filter((r) => r.rank === null),
  };
}

/** The report as a markdown table (one row per kind, language and overall). */
export function formatReport(title: string, r: Report): string {
  const row = (name: string, s: Scores) =>
    `| ${name} | ${s.count} | ${s.recallAt5.toFixed(2)} | ${s.recallAt10.toFixed(2)} | ${s.mrr.toFixed(2)} |`;
  return [
    `### ${title}`,
    '',
    '| group | questions | recall@5 | recall@10 | MRR |',
    '|---|---|---|---|---|',
    ...Object.entries(r.byKind).map(([k, s]) => row(k, s)),
    ...Object.entries(r.byLang).map(([k, s]) => row(k, s)),
    row('**overall**', r.overall),
  ].join('\n');
}

/** The floors CI holds (the targets): recall@10 overall and in every kind and language, MRR overall. */
export const FLOORS = { overallRecallAt10: 0.9, groupRecallAt10: 0.8, overallMrr: 0.8 } as const;

/** The groups (and overall) under their floor, as readable lines; empty when every floor holds. */
export function belowFloors(r: Report): string[] {
  const out: string[] = [];
  if (r.overall.recallAt10 < FLOORS.overallRecallAt10) out.push(`overall recall@10 ${r.overall.recallAt10}`);
  if (r.overall.mrr < FLOORS.overallMrr) out.push(`overall MRR ${r.overall.mrr}`);
  for (const [name, s] of [...Object.entries(r.byKind), ...Object.entries(r.byLang)]) {
    if (s.recallAt10 < FLOORS.groupRecallAt10) out.push(`${name} recall@10 ${s.recallAt10}`);
  }
  return out;
}

/** Loads the world of `dir` into a repository over `store` (which it closes), asks every question, reports. */
export async function evaluate(
  store: ResourceStore,
  embedder: Embedder,
  dir: string,
): Promise<QuestionResult[]> {
  const repo = await ResourceRepository.open(store, embedder);
  try {
    await seedWorld(repo, loadWorld(dir));
    return await askAll(repo, loadQuestions(dir));
  } finally {
    await repo.close();
  }
}
