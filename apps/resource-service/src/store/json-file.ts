import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';

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
 * the target (rename is atomic on one filesystem), so a crash leaves the old or the new document, never half.
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
}
