import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '@novelrag/repository';
import { LanceDbResourceStore } from '../store';
import { belowFloors, defaultEvalDir, evaluate, report } from './retrieval-eval';

const dir = defaultEvalDir(join(__dirname, '../../../..'));

describe('retrieval evaluation floors (LanceDB store, offline embedder)', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'novelrag-eval-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('keeps recall@10 >= 0.9 overall and >= 0.8 in every kind and language, MRR >= 0.8', async () => {
    const embedder = new LocalEmbedder(256);
    const store = await LanceDbResourceStore.open({ dir: folder, dimensions: embedder.dimensions });
    expect(belowFloors(report(await evaluate(store, embedder, dir)))).toEqual([]);
  });
});
