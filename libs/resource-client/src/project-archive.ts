import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { ResourceError } from '@novelrag/repository';
import { extract } from 'tar-stream';
import { configPaths, projectFilesRecord, projectToDumps } from './project-format';
import {
  DEFAULT_IMPORT_BATCH_BYTES,
  type ImportPlan,
  planImportBatches,
  PROJECT_CONFIG_FILE,
  type SkippedItem,
} from './project-import';

/** Bounds of an uploaded project archive: what it may unpack to, and how many entries it may hold. */
export const MAX_PROJECT_ARCHIVE_BYTES = 64 * 1024 * 1024;
export const MAX_PROJECT_ARCHIVE_ENTRIES = 20_000;

/** A project as files by their path inside it (`aspect.yml` and the files it names), plus what was left out. */
export interface ProjectFiles {
  readonly files: Map<string, string>;
  readonly skipped: SkippedItem[];
}

const invalid = (message: string, details?: Record<string, unknown>) =>
  new ResourceError('VALIDATION_FAILED', message, details);

/** A relative path that stays inside the project, normalized (`./a//b` → `a/b`); anything else is refused. */
function insidePath(name: string, what: string): string {
  const normalized = path.posix.normalize(name.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../'))
    throw invalid(`${what} ${name} would leave the project`, { path: name });
  return normalized;
}

const gunzipAsync = promisify(gunzip);

const tooLarge = (maxBytes: number) =>
  invalid(`the archive unpacks to more than ${maxBytes} bytes`, { tooLarge: true, maxBytes });

/** The archive unpacked off the event loop (zlib's thread pool), bounded while it inflates. */
async function gunzipped(archive: Buffer, maxBytes: number): Promise<Buffer> {
  if (archive[0] !== 0x1f || archive[1] !== 0x8b) {
    if (archive.length > maxBytes) throw tooLarge(maxBytes);
    return archive;
  }
  try {
    return await gunzipAsync(archive, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
    throw invalid('the upload is not a valid gzip stream');
  }
}

/**
 * Unpacks a tar archive (gzip-compressed or not) of a project: every regular file by its path, a single top folder
 * stripped (`tar czf world.tgz world/`). Entries that leave the project (`../`, absolute paths) are refused; links and
 * other non-files are reported as skipped; the unpacked size and the entry count are bounded.
 */
export async function readProjectArchive(
  archive: Buffer,
  maxBytes = MAX_PROJECT_ARCHIVE_BYTES,
): Promise<ProjectFiles> {
  const unpacked = await gunzipped(archive, maxBytes);
  const files = new Map<string, string>();
  const skipped: SkippedItem[] = [];
  const tar = extract();
  let entries = 0;
  const done = (async () => {
    for await (const entry of tar) {
      const { name, type } = entry.header;
      if (++entries > MAX_PROJECT_ARCHIVE_ENTRIES)
        throw invalid(`the archive holds more than ${MAX_PROJECT_ARCHIVE_ENTRIES} entries`);
      const file = insidePath(name, 'archive entry');
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      if (type === 'file' && file !== '.') files.set(file, Buffer.concat(chunks).toString('utf8'));
      else if (type !== 'directory') skipped.push({ item: file, reason: `a ${type} entry, not a file` });
    }
  })();
  Readable.from([unpacked]).pipe(tar);
  await done.catch((err: unknown) => {
    if (err instanceof ResourceError) throw err;
    throw invalid(`the upload is not a valid tar archive: ${(err as Error).message}`.slice(0, 300));
  });
  return { files: stripTopFolder(files), skipped };
}

/** `world/aspect.yml`, `world/...` → `aspect.yml`, `...` when everything sits in one folder without a config of its own. */
function stripTopFolder(files: Map<string, string>): Map<string, string> {
  if (files.has(PROJECT_CONFIG_FILE)) return files;
  const tops = new Set([...files.keys()].map((f) => f.split('/')[0] ?? ''));
  const [top = ''] = tops;
  if (tops.size !== 1 || !files.has(`${top}/${PROJECT_CONFIG_FILE}`)) return files;
  return new Map([...files].map(([name, text]) => [name.slice(top.length + 1), text]));
}

/**
 * Plans the import of a project given as files: `aspect.yml` and the files it names (a missing one is an error naming
 * it, nothing is imported); every other file is reported as skipped, as are oversized elements.
 */
export function planProjectFiles(
  { files, skipped }: ProjectFiles,
  maxBytes = DEFAULT_IMPORT_BATCH_BYTES,
): ImportPlan {
  const config = files.get(PROJECT_CONFIG_FILE);
  if (config === undefined) throw invalid(`the project holds no ${PROJECT_CONFIG_FILE}`);
  // By the file each names: two aspects may name one file, spelled differently (`a.yml`, `./a.yml`).
  const named = new Map<string, string[]>();
  for (const name of configPaths(config)) {
    const file = insidePath(name, 'file');
    named.set(file, [...(named.get(file) ?? []), name]);
  }
  const project = { config, files: projectFilesRecord() };
  const unnamed: SkippedItem[] = [];
  for (const [file, text] of files) {
    const names = named.get(file);
    if (names !== undefined) for (const name of names) project.files[name] = text;
    else if (file !== PROJECT_CONFIG_FILE)
      unnamed.push({ item: file, reason: `not named by ${PROJECT_CONFIG_FILE}` });
  }
  const plan = planImportBatches(projectToDumps(project), maxBytes);
  return { batches: plan.batches, skipped: [...skipped, ...unnamed, ...plan.skipped] };
}
