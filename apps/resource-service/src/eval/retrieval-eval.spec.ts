import { join } from 'node:path';
import { InMemoryResourceStore, LocalEmbedder, ResourceRepository } from '@novelrag/repository';
import {
  askAll,
  belowFloors,
  evaluate,
  defaultEvalDir,
  loadQuestions,
  loadWorld,
  QUESTION_KINDS,
  QUESTION_LANGS,
  report,
  seedWorld,
  worldUris,
} from './retrieval-eval';

const dir = defaultEvalDir(join(__dirname, '../../../..'));

describe('retrieval evaluation fixtures', () => {
  const world = loadWorld(dir);
  const questions = loadQuestions(dir);

  it('is a world of a few hundred elements and at least 80 questions of every kind in both languages', () => {
    expect(worldUris(world).size).toBeGreaterThanOrEqual(250);
    expect(questions.length).toBeGreaterThanOrEqual(80);
    for (const kind of QUESTION_KINDS) {
      for (const lang of QUESTION_LANGS) {
        expect(questions.filter((q) => q.kind === kind && q.lang === lang).length).toBeGreaterThanOrEqual(5);
      }
    }
  });

  it('names only answers that exist in the world', () => {
    const uris = worldUris(world);
    const unknown = questions.flatMap((q) => q.answers.filter((uri) => !uris.has(uri)));
    expect(unknown).toEqual([]);
  });

  it('loads into a repository and answers every question with a ranked list', async () => {
    const repo = await ResourceRepository.open(new InMemoryResourceStore(), new LocalEmbedder(64));
    await seedWorld(repo, world);
    expect(repo.snapshot().records.length).toBe(worldUris(world).size);
    const results = await askAll(repo, questions.slice(0, 5));
    expect(results.every((r) => r.top.length === 10)).toBe(true);
    expect(report(results).overall.count).toBe(5);
    await repo.close();
  });
});

describe('retrieval evaluation floors (in-memory store, offline embedder)', () => {
  it('keeps recall@10 >= 0.9 overall and >= 0.8 in every kind and language, MRR >= 0.8', async () => {
    const results = await evaluate(new InMemoryResourceStore(), new LocalEmbedder(256), dir);
    expect(belowFloors(report(results))).toEqual([]);
  });
});
