import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Reads a JSON file; null when it does not exist. Throws on unreadable or malformed content. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return JSON.parse(text) as unknown;
}

/**
 * Writes JSON atomically: a uniquely named temporary file in the same folder, flushed to disk, then renamed over
 * the target (rename is atomic on one filesystem), so a crash leaves the old or the new document, never half. The
 * folder is then flushed too, so that the rename itself survives a power loss, not only a killed process.
 */
export async function writeJsonFileAtomic(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(JSON.stringify(value), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncFolder(dirname(path));
}

/** fsync of a folder (its entries); skipped where the platform cannot open a folder for it (Windows). */
async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, 'r');
  } catch (err) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((err as NodeJS.ErrnoException).code ?? '')) return;
    throw err;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
