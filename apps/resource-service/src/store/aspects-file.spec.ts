import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AspectRecord, AspectsDelta } from '@novelrag/repository';
import { AspectsFile } from './aspects-file';
import { readJsonFile } from './json-file';

const aspect = (name: string, rootIds: string[]): AspectRecord => ({
  name,
  childrenKeys: [],
  metadata: {},
  rootIds,
});
const ids = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `r${String(from + i).padStart(7, '0')}`);
/** Appends `count` ids to `character`, whose list holds `length` ids. */
const append = (length: number, count: number): AspectsDelta => ({
  order: ['character'],
  put: [],
  roots: [{ aspect: 'character', head: length, ids: ids(length, count), tail: 0 }],
});
const whole = (rootIds: string[]): AspectsDelta => ({
  order: ['character'],
  put: [aspect('character', rootIds)],
  roots: [],
});

describe('AspectsFile: the aspect list as a file and a log of changes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'novelrag-aspects-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const logOf = async () => {
    const document = (await readJsonFile(join(dir, 'aspects.json'))) as { log?: string } | null;
    return document?.log ? join(dir, document.log) : undefined;
  };
  const logBytes = async () => {
    const log = await logOf();
    return log ? (await stat(log).catch(() => ({ size: 0 }))).size : 0;
  };

  it('refuses a folder whose named log is missing, instead of reading it as empty', async () => {
    const file = await AspectsFile.open(dir);
    await file.update(whole(['a']));
    await file.update(append(1, 1));
    const log = await logOf();
    expect(log).toBeDefined();
    await rm(log as string);
    await expect(AspectsFile.open(dir)).rejects.toThrow(
      /names the log aspects-[0-9a-f]+\.jsonl, which is missing/,
    );
  });

  it('opens a folder of the earlier build whose named log was never created (no change since its last fold)', async () => {
    const old = [aspect('character', ['a'])];
    const log = 'aspects-0123456789ab.jsonl';
    await writeFile(join(dir, 'aspects.json'), JSON.stringify({ schemaVersion: 1, value: old, log }));
    const file = await AspectsFile.open(dir);
    expect(file.view()).toEqual(old);
    await file.update(append(1, 1));
    expect((await AspectsFile.open(dir)).view()).toEqual([aspect('character', ['a', ...ids(1, 1)])]);
  });

  it('opens a folder written before logs existed and keeps its changes across reopens', async () => {
    const old = [aspect('character', ['a', 'b']), aspect('outline', ['o1'])];
    await writeFile(join(dir, 'aspects.json'), JSON.stringify({ schemaVersion: 1, value: old }));
    const file = await AspectsFile.open(dir);
    expect(file.view()).toEqual(old);
    await file.update({
      order: ['outline', 'character'],
      put: [],
      roots: [{ aspect: 'character', head: 2, ids: ['c'], tail: 0 }],
    });
    const expected = [aspect('outline', ['o1']), aspect('character', ['a', 'b', 'c'])];
    expect(file.view()).toEqual(expected);
    expect((await AspectsFile.open(dir)).view()).toEqual(expected);
    // Opening folded the log into aspects.json: a third open reads the same.
    expect((await AspectsFile.open(dir)).view()).toEqual(expected);
  });

  it('appends as many bytes for a change of a long list as for a short one', async () => {
    const file = await AspectsFile.open(dir, { minLogBytes: 1 << 30 });
    await file.update(whole(ids(0, 10)));
    const before = await logBytes();
    await file.update(append(10, 5));
    const small = (await logBytes()) - before;
    await file.update(whole(ids(0, 20_000)));
    const middle = await logBytes();
    await file.update(append(20_000, 5));
    const large = (await logBytes()) - middle;
    expect(small).toBeGreaterThan(0);
    // Only the head position is longer (10 → 20000).
    expect(large - small).toBeLessThanOrEqual(3);
    expect(file.view()[0]?.rootIds).toHaveLength(20_005);
  });

  it('ignores a torn last line (a crash during an append) and goes on after it', async () => {
    const file = await AspectsFile.open(dir);
    await file.update(whole(['a']));
    await file.update(append(1, 1));
    const log = (await logOf()) as string;
    await appendFile(log, '{"order":["charac');
    const reopened = await AspectsFile.open(dir);
    expect(reopened.view()).toEqual([aspect('character', ['a', 'r0000001'])]);
    await reopened.update(append(2, 1));
    expect((await AspectsFile.open(dir)).view()).toEqual([
      aspect('character', ['a', 'r0000001', 'r0000002']),
    ]);
  });

  it('refuses a log line that is malformed before the last', async () => {
    const file = await AspectsFile.open(dir);
    await file.update(whole(['a']));
    const log = (await logOf()) as string;
    await appendFile(log, 'not json\n');
    await appendFile(log, `${JSON.stringify(append(1, 1))}\n`);
    await expect(AspectsFile.open(dir)).rejects.toThrow(/Line 2 of the aspects log/);
  });

  it('folds the log into aspects.json once it outgrows it, removing the old log', async () => {
    const file = await AspectsFile.open(dir, { minLogBytes: 200 });
    await file.update(whole(ids(0, 3)));
    const first = await logOf();
    let length = 3;
    for (let n = 0; n < 10; n++) {
      await file.update(append(length, 2));
      length += 2;
    }
    const current = await logOf();
    expect(current).not.toEqual(first);
    expect((await readdir(dir)).filter((name) => name.endsWith('.jsonl')).length).toBeLessThanOrEqual(1);
    expect(await logBytes()).toBeLessThan(400);
    expect((await AspectsFile.open(dir)).view()[0]?.rootIds).toEqual(ids(0, length));
  });

  it('removes a log that a crash during a fold left behind', async () => {
    const file = await AspectsFile.open(dir);
    await file.update(whole(['a']));
    await writeFile(join(dir, 'aspects-0123456789ab.jsonl'), `${JSON.stringify(whole(['z']))}\n`);
    expect((await AspectsFile.open(dir)).view()).toEqual([aspect('character', ['a'])]);
    expect(await readdir(dir)).not.toContain('aspects-0123456789ab.jsonl');
  });

  it('refuses a change that does not fit, appending nothing', async () => {
    const file = await AspectsFile.open(dir);
    await file.update(whole(['a']));
    const before = await logBytes();
    await expect(file.update(append(5, 1))).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await logBytes()).toBe(before);
    expect(file.view()).toEqual([aspect('character', ['a'])]);
    expect(JSON.parse(await readFile(join(dir, 'aspects.json'), 'utf8'))).toMatchObject({ schemaVersion: 1 });
  });

  it('keeps an update whose fold failed after a fold that renamed aspects.json but then failed', async () => {
    const file = await AspectsFile.open(dir, { minLogBytes: 1 });
    await file.update(whole(ids(0, 1)));
    let renamed = false;
    let failTmp = false;
    let kept = false;
    // The module object itself (an `import * as` namespace is a copy the store's imports do not read).
    const fsPromises = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
    const realOpen = fsPromises.open;
    const realRename = fsPromises.rename;
    const rename = jest.spyOn(fsPromises, 'rename').mockImplementation(async (from, to) => {
      await realRename(from, to);
      renamed = String(to).endsWith('aspects.json');
    });
    const open = jest.spyOn(fsPromises, 'open').mockImplementation(async (path, flags) => {
      if (String(path) === dir && renamed) {
        renamed = false;
        throw Object.assign(new Error('EIO: flushing the folder'), { code: 'EIO' });
      }
      if (failTmp && String(path).endsWith('.tmp')) {
        throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
      }
      return realOpen(path, flags);
    });
    try {
      // Its fold renames a new aspects.json into place, then fails flushing the folder.
      await file.update(append(1, 50));
      failTmp = true;
      // No new aspects.json can be written now: the update either rejects or is kept across a reopen.
      kept = await file.update(append(51, 1)).then(
        () => true,
        () => false,
      );
    } finally {
      open.mockRestore();
      rename.mockRestore();
    }
    expect(file.view()[0]?.rootIds).toEqual(ids(0, kept ? 52 : 51));
    expect((await AspectsFile.open(dir)).view()[0]?.rootIds).toEqual(ids(0, kept ? 52 : 51));
  });
});
