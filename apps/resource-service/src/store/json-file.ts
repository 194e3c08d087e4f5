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
 * folder is then flushed too, so that the rename itself survives a power loss, not only a killed process. Returns
 * the bytes written.
 */
export async function writeJsonFileAtomic(path: string, value: unknown): Promise<number> {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const text = JSON.stringify(value);
  await writeFlushed(tmp, 'w', text);
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncFolder(dirname(path));
  return Buffer.byteLength(text);
}

/**
 * Appends `text` to a file (created when absent) and flushes it to disk before resolving; `created`: the append
 * creates the file, so its folder is flushed too (the new entry must survive a power loss as well).
 */
export async function appendFileDurable(path: string, text: string, created: boolean): Promise<void> {
  await writeFlushed(path, 'a', text);
  if (created) await syncFolder(dirname(path));
}

/** Writes `text` to a file (`flags` 'w': replacing its content, 'a': after it) and flushes it to disk. */
async function writeFlushed(path: string, flags: 'w' | 'a', text: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
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
