import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderLock, LOCK_FILE } from './folder-lock';

describe('FolderLock (one process per data folder)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'novelrag-lock-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a second owner while the first lives, naming it, and lets go on release', async () => {
    const first = await FolderLock.acquire(join(dir, 'store'));
    await expect(FolderLock.acquire(join(dir, 'store'))).rejects.toThrow(
      `in use by process ${process.pid} on ${hostname()}`,
    );
    await first.release();
    const second = await FolderLock.acquire(join(dir, 'store'));
    await second.release();
  });

  it('takes over a lock left by a process that is gone, or an unreadable one', async () => {
    // The pid of a process that has exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const deadPid = Number(gone.stdout);
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: deadPid, host: hostname(), startedAt: '2026-01-01T00:00:00Z' }),
    );
    const lock = await FolderLock.acquire(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();

    await writeFile(join(dir, LOCK_FILE), '{"pid":'); // half-written
    const again = await FolderLock.acquire(dir);
    await again.release();
  });

  it("takes over a stale lock that records this process's own pid (a container restarted after a crash)", async () => {
    // Same hostname, same pid (node as PID 1), but written by the previous run: this process never acquired it.
    const previousRun = { pid: process.pid, host: hostname(), startedAt: '2026-01-01T00:00:00Z' };
    await writeFile(join(dir, LOCK_FILE), JSON.stringify(previousRun));
    const lock = await FolderLock.acquire(dir);
    const now = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as { startedAt: string };
    expect(now.startedAt).not.toBe(previousRun.startedAt);
    // While this process holds it, it is still refused a second time, and it is free again after release.
    await expect(FolderLock.acquire(dir)).rejects.toThrow(`in use by process ${process.pid}`);
    await lock.release();
    await (await FolderLock.acquire(dir)).release();
  });

  it('does not remove a lock another owner took since', async () => {
    const lock = await FolderLock.acquire(dir);
    const other = JSON.stringify({ pid: 1, host: 'elsewhere', startedAt: '2026-01-01T00:00:00Z' });
    await writeFile(join(dir, LOCK_FILE), other);
    await lock.release();
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(other);
    // An owner on another host cannot be checked: it is taken as alive.
    await expect(FolderLock.acquire(dir)).rejects.toThrow('in use by process 1 on elsewhere');
  });
});
