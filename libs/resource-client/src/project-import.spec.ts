import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AspectDump } from '@novelrag/contracts';
import { isResourceError } from '@novelrag/repository';
import { projectToDumps } from './project-format';
import { planImportBatches, planProjectDir } from './project-import';

const aspect = { name: 'character', childrenKeys: [], metadata: {} };
const element = (i: number, size: number) => ({ id: `e${i}`, properties: { text: 'x'.repeat(size) } });

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('planImportBatches', () => {
  it('cuts an aspect into batches under the bound, each starting where the previous ended', () => {
    const dumps: AspectDump[] = [{ aspect, elements: Array.from({ length: 10 }, (_, i) => element(i, 300)) }];
    const { batches, skipped } = planImportBatches(dumps, 1_000);
    expect(skipped).toEqual([]);
    expect(batches.map((b) => [b.start, b.elements.length])).toEqual([
      [0, 2],
      [2, 2],
      [4, 2],
      [6, 2],
      [8, 2],
    ]);
    for (const b of batches) expect(Buffer.byteLength(JSON.stringify(b.elements))).toBeLessThan(1_000);
  });

  it('keeps an empty aspect as one batch and skips an element larger than a batch, saying why', () => {
    const dumps: AspectDump[] = [
      { aspect: { ...aspect, name: 'empty' }, elements: [] },
      { aspect, elements: [element(0, 10), element(1, 5_000), element(2, 10)] },
    ];
    const { batches, skipped } = planImportBatches(dumps, 1_000);
    expect(batches.map((b) => [b.aspect.name, b.start, b.elements.map((e) => e.id)])).toEqual([
      ['empty', 0, []],
      ['character', 0, ['e0', 'e2']],
    ]);
    expect(skipped).toEqual([
      { item: '/character/e1', reason: expect.stringMatching(/exceeds the batch bound of 1000 bytes/) },
    ]);
  });
});

describe('project directories', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'novelrag-project-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a file the config names but the project lacks is an error, not an empty aspect', async () => {
    expect(() => projectToDumps({ config: 'a: { path: a.yml }', files: {} })).toThrow(
      /aspect a: file a.yml named by the config is missing/,
    );
    await writeFile(path.join(dir, 'aspect.yml'), 'a: { path: a.yml }');
    const err = await failure(planProjectDir(dir));
    expect(isResourceError(err) && err.code).toBe('VALIDATION_FAILED');
  });

  it('refuses a config path outside the directory and reports YAML files the config does not name', async () => {
    await mkdir(path.join(dir, 'sub'));
    await writeFile(path.join(dir, 'sub/a.yml'), '- id: x\n  name: X\n');
    await writeFile(path.join(dir, 'extra.yaml'), '[]');
    await writeFile(path.join(dir, 'aspect.yml'), 'a: { path: sub/a.yml }');
    const plan = await planProjectDir(dir);
    expect(plan.batches).toHaveLength(1);
    expect(plan.skipped).toEqual([{ item: 'extra.yaml', reason: 'not named by aspect.yml' }]);
    await writeFile(path.join(dir, 'aspect.yml'), 'a: { path: ../a.yml }');
    expect((await failure(planProjectDir(dir))).message).toMatch(/outside/);
  });

  it('a directory without aspect.yml is a clear error', async () => {
    expect((await failure(planProjectDir(dir))).message).toMatch(/holds no readable aspect.yml/);
  });
});
