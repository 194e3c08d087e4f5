import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isResourceError } from '@novelrag/repository';
import {
  batchLabel,
  ImportBatchReply,
  type ImportPlan,
  NovelragProject,
  planProjectDir,
  PROJECT_CONFIG_FILE,
  projectToDumps,
  readProjectDir,
} from '@novelrag/resource-client';
import { flag, intOption } from '../args';
import { CLI_EXIT, CliError, usageError } from '../errors';
import { type CommandHandler, print } from './command-handler';
import { uploadProject } from './project-upload';

/** Default bound on one batch's elements: well under the gateway's default 256 KiB request body. */
export const DEFAULT_CLI_BATCH_BYTES = 128 * 1024;

/** Reads the project locally; a project-format problem (a missing file) is a usage error before anything is sent. */
async function local<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (isResourceError(err))
      throw new CliError('usage', err.code, err.message, err.details && { ...err.details });
    throw err;
  }
}

const localPlan = (dir: string, maxBytes: number): Promise<ImportPlan> =>
  local(() => planProjectDir(dir, maxBytes));

/** `import <dir> --upload`: the project as one archive; the gateway cuts the batches and streams its progress. */
const uploadImport: CommandHandler = async (cmd, client, io) => {
  const mode = flag(cmd.values, 'replace') ? 'replace' : 'merge';
  const { project, skipped } = await local(async () => {
    const read = await readProjectDir(cmd.positionals[0] ?? '');
    projectToDumps(read.project); // a named file that is missing fails here, before the upload
    return read;
  });
  const report = await uploadProject(client, io, project, { mode, quiet: cmd.global.json });
  print(cmd, io, { ...report, skipped: [...skipped, ...report.skipped] }, (r) =>
    [
      `Imported ${r.aspects} aspect(s), ${r.elements} element(s) in ${r.batches} batch(es).`,
      ...r.skipped.map((s) => `skipped ${s.item}: ${s.reason}`),
    ].join('\n'),
  );
  return CLI_EXIT.ok;
};

/**
 * `import <dir> [--replace] [--batch-bytes N] [--upload]`: reads the project locally and sends it batch by batch (or,
 * with `--upload`, as one archive the gateway imports in batches, following its progress).
 */
export const importProject: CommandHandler = async (cmd, client, io) => {
  if (flag(cmd.values, 'upload')) return uploadImport(cmd, client, io);
  const dir = cmd.positionals[0] ?? '';
  const maxBytes = intOption(cmd.values, 'batch-bytes', 1_024, 8 * 1024 * 1024) ?? DEFAULT_CLI_BATCH_BYTES;
  const mode = flag(cmd.values, 'replace') ? 'replace' : 'merge';
  const plan = await localPlan(dir, maxBytes);
  let elements = 0;
  const aspects = new Set<string>();
  for (const [index, batch] of plan.batches.entries()) {
    await client.request('/v1/projects/import/batches', ImportBatchReply, {
      method: 'POST',
      body: { ...batch, mode },
    });
    elements += batch.elements.length;
    aspects.add(batch.aspect.name);
    const line = `batch ${index + 1}/${plan.batches.length}: ${batchLabel(batch)}`;
    if (cmd.global.json) io.status(line);
    else io.out(line);
  }
  const report = {
    aspects: aspects.size,
    rootElements: elements,
    batches: plan.batches.length,
    skipped: plan.skipped,
  };
  print(cmd, io, report, (r) =>
    [
      `Imported ${r.aspects} aspect(s), ${r.rootElements} root element(s) in ${r.batches} batch(es).`,
      ...r.skipped.map((s) => `skipped ${s.item}: ${s.reason}`),
    ].join('\n'),
  );
  return CLI_EXIT.ok;
};

/** Resolves a config-named path inside `root`, refusing one that would escape it. */
function inside(root: string, name: string): string {
  const file = path.resolve(root, name);
  if (!file.startsWith(root + path.sep))
    throw new CliError('protocol', 'BAD_RESPONSE', `exported path ${name} would leave ${root}`);
  return file;
}

async function ensureWritable(root: string, force: boolean): Promise<void> {
  const existing = await stat(path.join(root, PROJECT_CONFIG_FILE)).catch(() => undefined);
  if (existing && !force)
    throw usageError(`${root} already holds ${PROJECT_CONFIG_FILE} (pass --force to overwrite)`);
  await mkdir(root, { recursive: true });
}

/** `export <dir> [--force]`: writes the aspect config and every aspect's file at the path the config names. */
export const exportProject: CommandHandler = async (cmd, client, io) => {
  const root = path.resolve(cmd.positionals[0] ?? '');
  await ensureWritable(root, flag(cmd.values, 'force'));
  const project = await client.request('/v1/projects/export', NovelragProject);
  const targets = Object.entries(project.files).map(([name, text]) => [inside(root, name), text] as const);
  await writeFile(path.join(root, PROJECT_CONFIG_FILE), project.config);
  for (const [file, text] of targets) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  const report = { dir: root, files: [PROJECT_CONFIG_FILE, ...Object.keys(project.files)] };
  print(cmd, io, report, (r) => `Exported ${r.files.length} file(s) to ${r.dir}.`);
  return CLI_EXIT.ok;
};
