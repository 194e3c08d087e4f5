import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';

/** What an owner writes into the lock file. */
interface Owner {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
}

export const LOCK_FILE = 'owner.lock';

/** The lock files this process holds (resolved paths): a lock naming this pid but absent here is a previous run's. */
const heldHere = new Set<string>();

/**
 * Exclusive ownership of a data folder by one process: two resource-services writing one embedded store would each
 * hold their own tree and overwrite each other's history document. The lock is a file created exclusively with the
 * owner's pid; a lock left by a process that is gone (killed) on this host is taken over, and so is one that names
 * this very pid without this process holding it (a container restarted after a crash: same hostname, same pid).
 */
export class FolderLock {
  private constructor(
    private readonly path: string,
    private readonly owner: Owner,
  ) {}

  /** Takes the folder (created when missing); throws an Error naming the owner when a live process holds it. */
  static async acquire(dir: string): Promise<FolderLock> {
    await mkdir(dir, { recursive: true });
    const path = resolve(dir, LOCK_FILE);
    const owner: Owner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(path, 'wx');
        try {
          await handle.writeFile(JSON.stringify(owner), 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        heldHere.add(path);
        return new FolderLock(path, owner);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = await readOwner(path);
      if (holder && isAlive(holder, path)) {
        throw new Error(
          `The data folder ${dir} is in use by process ${holder.pid} on ${holder.host} (since ${holder.startedAt}). ` +
            `Stop it, or give this service another NOVELRAG_DATA_DIR; if that process is gone, delete ${path}.`,
        );
      }
      await rm(path, { force: true }); // left by a process that died: take it over
    }
    throw new Error(`Could not take the lock ${path}: another process took it at the same time`);
  }

  /** Gives the folder up (only if this process still owns the lock file). */
  async release(): Promise<void> {
    heldHere.delete(this.path);
    const holder = await readOwner(this.path);
    if (holder?.pid === this.owner.pid && holder.startedAt === this.owner.startedAt) {
      await rm(this.path, { force: true });
    }
  }
}

async function readOwner(path: string): Promise<Owner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<Owner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return { pid: parsed.pid, host: parsed.host, startedAt: String(parsed.startedAt) };
  } catch {
    return undefined; // missing, half-written or garbage: nobody we can name holds it
  }
}

/**
 * Whether the owner may still run: a live pid on this host (this process only if it holds the lock); an owner on
 * another host is assumed alive.
 */
function isAlive(owner: Owner, path: string): boolean {
  if (owner.host !== hostname()) return true;
  if (owner.pid === process.pid) return heldHere.has(path);
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}
