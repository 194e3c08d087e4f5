import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJsonFile, writeJsonFileAtomic } from './json-file';

describe('JSON files written atomically', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'novelrag-json-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back what was written, replaces it whole, and leaves no temporary file', async () => {
    const file = join(dir, 'history.json');
    await writeJsonFileAtomic(file, { a: 1, text: '余归' });
    await writeJsonFileAtomic(file, { b: [2] });
    expect(await readJsonFile(file)).toEqual({ b: [2] });
    expect(await readdir(dir)).toEqual(['history.json']);
  });

  it('reads a missing file as null and refuses malformed content', async () => {
    expect(await readJsonFile(join(dir, 'absent.json'))).toBeNull();
    await writeFile(join(dir, 'bad.json'), '{"half":');
    await expect(readJsonFile(join(dir, 'bad.json'))).rejects.toThrow(SyntaxError);
  });

  it('fails without leaving anything behind when the folder is missing', async () => {
    await expect(writeJsonFileAtomic(join(dir, 'missing', 'x.json'), {})).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(await readdir(dir)).toEqual([]);
  });
});
