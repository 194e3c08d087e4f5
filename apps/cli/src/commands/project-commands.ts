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
} from '@novelrag/resource-client';
import { flag, intOption } from '../args';
import { CLI_EXIT, CliError, usageError } from '../errors';
import { type CommandHandler, print } from './command-handler';

/** Default bound on one batch's elements: well under the gateway's default 256 KiB request body. */
export const DEFAULT_CLI_BATCH_BYTES = 128 * 1024;

async function localPlan(dir: string, maxBytes: number): Promise<ImportPlan> {
  try {
    return await planProjectDir(dir, maxBytes);
  } catch (err) {
    if (isResourceError(err))
      throw new CliError('usage', err.code, err.message, err.details && { ...err.details });
    throw err;
  }
}

/** `import <dir> [--replace] [--batch-bytes N]`: reads the project locally and sends it batch by batch. */
export const importProject: CommandHandler = async (cmd, client, io) => {
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
