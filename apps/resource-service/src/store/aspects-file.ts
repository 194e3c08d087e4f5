import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { applyAspectsDelta, assertAspectsDeltaFits, AspectRecord, AspectsDelta } from '@novelrag/repository';
import { appendFileDurable, readJsonFile, writeJsonFileAtomic } from './json-file';

const LOG_NAME = /^aspects-[0-9a-f]{12}\.jsonl$/;
/** Default `minLogBytes`: the log is folded once it holds more bytes than `aspects.json`, and at least this many. */
const MIN_LOG_BYTES = 1 << 20;

/** `aspects.json`: the list at its last compaction and the log of the changes since (absent before logs existed). */
const AspectsDocument = z.object({
  schemaVersion: z.literal(1), // META_SCHEMA_VERSION, like every file of the meta folder
  value: z.array(AspectRecord),
  log: z.string().regex(LOG_NAME).optional(),
  /** The log was created (empty, flushed) before this document named it: a missing log is then a damaged folder. */
  logCreated: z.literal(true).optional(),
});

interface LogState {
  readonly name: string;
  /** Bytes appended so far. */
  bytes: number;
  /** False until the first append created the file (its folder is flushed then). */
  created: boolean;
}

/**
 * The aspect list of the embedded store: `aspects.json` holds the list as it was at its last compaction and names
 * its log, `aspects-<id>.jsonl`, which holds one `AspectsDelta` per line, each appended and flushed by `update`. So
 * a write costs the size of its change, not of the list (rewriting a million root ids took ~7 MB per write); the log
 * is folded into a new `aspects.json` (with a new, empty log) once it is larger than it, so the rewrites cost a
 * constant share of the bytes appended. The folder was opened with an older build when `aspects.json` names no log.
 *
 * Crash safety: the new `aspects.json` is renamed into place before the old log is removed, so the pair on disk is
 * always consistent; a torn last line (a crash during an append) is ignored when opening: its write had not
 * finished, and the repository replays it from its journal. Opening folds a non-empty log at once, so no later
 * line follows a torn one. A log is created before `aspects.json` names it, so opening refuses a folder whose named
 * log is missing (changed outside the service) instead of reading it as empty.
 */
export class AspectsFile {
  private constructor(
    private readonly dir: string,
    private list: AspectRecord[],
    private log: LogState | null,
    /** Bytes of `aspects.json` as last written (0 until this process wrote it: the log then folds at its minimum). */
    private baseBytes: number,
    private readonly minLogBytes: number,
  ) {}

  /** Reads the list (and its log) from `dir`. Throws when a file is malformed or the log does not fit the list. */
  static async open(dir: string, options: { minLogBytes?: number } = {}): Promise<AspectsFile> {
    const path = join(dir, 'aspects.json');
    const raw = await readJsonFile(path);
    const parsed = raw === null ? null : AspectsDocument.safeParse(raw);
    if (parsed && !parsed.success) throw new Error(`${path} is not a version 1 aspects document`);
    const document = parsed?.success ? parsed.data : { value: [], log: undefined };
    const logText = document.log ? await readLog(join(dir, document.log)) : '';
    if (logText === null && 'logCreated' in document && document.logCreated) {
      throw new Error(
        `${path} names the log ${document.log}, which is missing: the folder was changed outside the service (restore the file from a backup)`,
      );
    }
    const text = logText ?? ''; // written by a build that created the log at its first change: none yet
    const file = new AspectsFile(
      dir,
      foldLog(document.value, text, document.log ?? ''),
      document.log ? { name: document.log, bytes: Buffer.byteLength(text), created: logText !== null } : null,
      0,
      options.minLogBytes ?? MIN_LOG_BYTES,
    );
    if (text.length > 0) await file.compact();
    await file.removeLogsBut(file.log?.name);
    return file;
  }

  /** The current list itself (not a copy: callers must not change it). */
  view(): readonly AspectRecord[] {
    return this.list;
  }

  /**
   * Appends `delta` to the log and applies it. Rejects, changing nothing, when it does not fit the list (CONFLICT)
   * or the append fails (then the next update starts a new log, so a partly written line is never followed).
   */
  async update(delta: AspectsDelta): Promise<void> {
    const change = structuredClone(delta);
    assertAspectsDeltaFits(this.list, change);
    if (!this.log) await this.compact();
    const log = this.log as LogState;
    const line = `${JSON.stringify(change)}\n`;
    try {
      await appendFileDurable(join(this.dir, log.name), line, !log.created);
    } catch (err) {
      this.log = null;
      throw err;
    }
    log.created = true;
    log.bytes += Buffer.byteLength(line);
    this.list = applyAspectsDelta(this.list, change, true);
    if (log.bytes > Math.max(this.baseBytes, this.minLogBytes)) {
      // A failed fold leaves the current pair valid; the next update tries again.
      await this.compact().catch(() => undefined);
    }
  }

  /** Writes the list to `aspects.json` with a new, empty log, then removes the old log. */
  private async compact(): Promise<void> {
    const name = `aspects-${randomBytes(6).toString('hex')}.jsonl`;
    const old = this.log;
    // Until the new pair is in place: a failure may come after the rename (flushing the folder), so appending on to
    // the old log would write where aspects.json no longer points; the next update compacts first instead.
    this.log = null;
    // The log exists before aspects.json names it (the rename's folder flush makes both entries durable), so a log
    // found missing on opening is damage, not a log nothing was written to yet.
    await appendFileDurable(join(this.dir, name), '', false);
    this.baseBytes = await writeJsonFileAtomic(join(this.dir, 'aspects.json'), {
      schemaVersion: 1,
      value: this.list,
      log: name,
      logCreated: true,
    });
    this.log = { name, bytes: 0, created: true };
    if (old) await rm(join(this.dir, old.name), { force: true }).catch(() => undefined);
  }

  /** Removes the logs a crash left behind (between a compaction's rename and its removal of the old log). */
  private async removeLogsBut(keep: string | undefined): Promise<void> {
    const stale = (await readdir(this.dir)).filter((name) => LOG_NAME.test(name) && name !== keep);
    for (const name of stale) await rm(join(this.dir, name), { force: true });
  }
}

/** The log's text; null when the file is missing. */
async function readLog(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** `base` with the log's changes applied in order; a malformed last line is a torn append and is skipped. */
function foldLog(base: AspectRecord[], text: string, name: string): AspectRecord[] {
  const lines = text.split('\n');
  let list = base;
  for (const [index, line] of lines.entries()) {
    if (line.length === 0) continue;
    let delta: AspectsDelta;
    try {
      delta = AspectsDelta.parse(JSON.parse(line));
    } catch {
      if (index === lines.length - 1) break;
      throw new Error(`Line ${index + 1} of the aspects log ${name} is not an aspect change`);
    }
    list = applyAspectsDelta(list, delta, true);
  }
  return list;
}
