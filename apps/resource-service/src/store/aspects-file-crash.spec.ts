import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyAspectsDelta, type AspectRecord, type AspectsDelta } from '@novelrag/repository';
import { AspectsFile } from './aspects-file';

const aspect = (name: string, rootIds: string[]): AspectRecord => ({
  name,
  childrenKeys: [],
  metadata: {},
  rootIds,
});

/** Deltas that append, remove at the start, replace in the middle, reorder, create and remove aspects. */
function deltas(): AspectsDelta[] {
  const out: AspectsDelta[] = [];
  let list: AspectRecord[] = [];
  const push = (delta: AspectsDelta) => {
    out.push(delta);
    list = applyAspectsDelta(list, structuredClone(delta));
  };
  push({ order: ['a'], put: [aspect('a', ['x0'])], roots: [] });
  for (let i = 1; i < 16; i++) {
    const a = list.find((x) => x.name === 'a') as AspectRecord;
    const n = a.rootIds.length;
    const names = list.map((x) => x.name);
    if (i % 5 === 0 && !names.includes('b'))
      push({ order: ['b', ...names], put: [aspect('b', [`b${i}`])], roots: [] });
    else if (i % 7 === 0) push({ order: names.filter((name) => name !== 'b'), put: [], roots: [] });
    else if (i % 3 === 0)
      push({ order: names, put: [], roots: [{ aspect: 'a', head: 0, ids: [], tail: n - 1 }] });
    else if (i % 4 === 0) {
      const mid = Math.floor(n / 2);
      push({ order: names, put: [], roots: [{ aspect: 'a', head: mid, ids: [`m${i}`], tail: n - mid - 1 }] });
    } else
      push({ order: names, put: [], roots: [{ aspect: 'a', head: n, ids: [`x${i}`, `y${i}`], tail: 0 }] });
  }
  return out;
}

describe('AspectsFile: a crash at any file step of an update, then a reopen', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'novelrag-aspects-crash-'));
  });
  const fs = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
  const real = { open: fs.open, rename: fs.rename, rm: fs.rm };
  /** Makes the n-th open/sync/rename/rm of the files fail with `fail` (whose `run` does the call), the others run. */
  const failAt = (fail: (calls: number, run: () => Promise<unknown>) => Promise<unknown>) => {
    let calls = 0;
    const step = (run: () => Promise<unknown>) => fail(++calls, run);
    // A file's flush fails too (its bytes written, or not when the write itself failed).
    const open = async (...args: Parameters<typeof fs.open>) => {
      const handle = await real.open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = () => step(sync) as Promise<void>;
      return handle;
    };
    jest.spyOn(fs, 'open').mockImplementation((...args) => step(() => open(...args)) as never);
    jest.spyOn(fs, 'rename').mockImplementation((...args) => step(() => real.rename(...args)) as never);
    jest.spyOn(fs, 'rm').mockImplementation((...args) => step(() => real.rm(...args)) as never);
  };
  afterEach(async () => {
    jest.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([false, true])(
    'holds the list before or after the update in progress (step lands: %s)',
    async (landed) => {
      const all = deltas();
      const fs = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
      const real = { open: fs.open, rename: fs.rename, rm: fs.rm };
      for (let crashAt = 1; ; crashAt++) {
        await fs.rm(dir, { recursive: true, force: true });
        await fs.mkdir(dir);
        let calls = 0;
        let crashed = false;
        const step = async <T>(run: () => Promise<T>): Promise<T> => {
          if (crashed) throw new Error('dead');
          if (++calls < crashAt) return run();
          crashed = true;
          if (landed) await run();
          throw new Error('crash');
        };
        jest.spyOn(fs, 'open').mockImplementation((...args) => step(() => real.open(...args)));
        jest.spyOn(fs, 'rename').mockImplementation((...args) => step(() => real.rename(...args)));
        jest.spyOn(fs, 'rm').mockImplementation((...args) => step(() => real.rm(...args)));
        let list: AspectRecord[] = [];
        let at = all.length;
        try {
          const file = await AspectsFile.open(dir, { minLogBytes: 150 });
          for (const [index, delta] of all.entries()) {
            at = index;
            await file.update(delta);
            list = applyAspectsDelta(list, structuredClone(delta));
          }
          at = all.length;
        } catch {
          // the process died
        }
        jest.restoreAllMocks();
        if (!crashed) break;
        const reopened = await AspectsFile.open(dir, { minLogBytes: 150 });
        const after =
          at < all.length ? applyAspectsDelta(list, structuredClone(all[at] as AspectsDelta)) : list;
        expect([list, after]).toContainEqual([...reopened.view()]);
        // The journal replays the update in progress, then the writes go on.
        for (const delta of all.slice(at)) await reopened.update(delta);
        const final = all.reduce<AspectRecord[]>((l, d) => applyAspectsDelta(l, structuredClone(d)), []);
        expect({ crashAt, list: [...reopened.view()] }).toEqual({ crashAt, list: final });
        expect({ crashAt, list: [...(await AspectsFile.open(dir)).view()] }).toEqual({
          crashAt,
          list: final,
        });
      }
    },
  );

  it.each([false, true])(
    'keeps every update after one failed step (it lands: %s) and a retry',
    async (landed) => {
      const all = deltas();
      const final = all.reduce<AspectRecord[]>((l, d) => applyAspectsDelta(l, structuredClone(d)), []);
      for (let failAtCall = 1; ; failAtCall++) {
        await fs.rm(dir, { recursive: true, force: true });
        await fs.mkdir(dir);
        let failed = false;
        failAt(async (calls, run) => {
          if (calls !== failAtCall) return run();
          failed = true;
          if (landed) await run();
          throw new Error('EIO');
        });
        const file = await AspectsFile.open(dir, { minLogBytes: 150 }).catch(() => null);
        // A failed update is retried (the repository's repair) before the next one.
        for (const delta of all) if (file) await file.update(delta).catch(() => file.update(delta));
        jest.restoreAllMocks();
        if (!failed) break;
        const reopened = file ?? (await AspectsFile.open(dir, { minLogBytes: 150 }));
        if (!file) for (const delta of all) await reopened.update(delta);
        expect({ failAtCall, list: [...reopened.view()] }).toEqual({ failAtCall, list: final });
        expect({ failAtCall, list: [...(await AspectsFile.open(dir)).view()] }).toEqual({
          failAtCall,
          list: final,
        });
      }
    },
  );
});
