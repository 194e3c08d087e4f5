import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Aspect,
  AspectDump,
  type ElementInput,
  ErrorCode,
  type ImportRequest,
  SCHEMA_VERSION,
} from '@novelrag/contracts';
import { ResourceError } from '@novelrag/repository';
import { z } from 'zod';
import { configPaths, type NovelragProject, projectFilesRecord, projectToDumps } from './project-format';
import type { ResourceService } from './resource-service.port';
import { countInputs } from './wire-helpers';

/** The config file a NovelRAG project directory holds. */
export const PROJECT_CONFIG_FILE = 'aspect.yml';
/** Default bound on one batch's elements (JSON bytes): well under NATS's 1 MiB message with the envelope. */
export const DEFAULT_IMPORT_BATCH_BYTES = 512 * 1024;

/**
 * One request of an import: an aspect and a run of its root elements (children inline). `start` 0 creates the
 * aspect with them (`resources.import`); a later batch inserts them at `start` of the aspect's root list.
 */
export const ImportBatch = z.strictObject({
  aspect: AspectDump.shape.aspect,
  elements: AspectDump.shape.elements,
  start: z.number().int().nonnegative(),
});
export type ImportBatch = z.infer<typeof ImportBatch>;

/** Something left out of an import, and why. */
export const SkippedItem = z.strictObject({ item: z.string(), reason: z.string() });
export type SkippedItem = z.infer<typeof SkippedItem>;

export interface ImportPlan {
  readonly batches: ImportBatch[];
  readonly skipped: SkippedItem[];
}

/** What an import did: aspects, elements (children counted), batches sent, and what was skipped and why. */
export const ImportReport = z.strictObject({
  aspects: z.number().int().nonnegative(),
  elements: z.number().int().nonnegative(),
  batches: z.number().int().nonnegative(),
  skipped: z.array(SkippedItem),
});
export type ImportReport = z.infer<typeof ImportReport>;

/**
 * A line of an import's progress stream (`Accept: application/x-ndjson`): the plan, one line per batch sent, then the
 * report, or an error that stopped it (the batches before it stay imported).
 */
export const ImportProgressEvent = z.discriminatedUnion('event', [
  z.strictObject({
    event: z.literal('plan'),
    batches: z.number().int().nonnegative(),
    skipped: z.number().int().nonnegative(),
  }),
  z.strictObject({
    event: z.literal('progress'),
    batch: z.number().int().min(1),
    batches: z.number().int().min(1),
    /** The batch, as `aspect [start..end)` of its root elements. */
    label: z.string(),
    /** Elements imported so far (children counted). */
    elements: z.number().int().nonnegative(),
  }),
  z.strictObject({ event: z.literal('report'), report: ImportReport }),
  z.strictObject({
    event: z.literal('error'),
    error: z.strictObject({
      code: ErrorCode,
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
]);
export type ImportProgressEvent = z.infer<typeof ImportProgressEvent>;

/** The answer to one batch: how many root elements it carried. */
export const ImportBatchReply = z.strictObject({ elements: z.number().int().nonnegative() });
export type ImportBatchReply = z.infer<typeof ImportBatchReply>;

const byteSize = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Cuts aspects into batches of at most `maxBytes` of elements; a single element over the bound is skipped. */
export function planImportBatches(
  dumps: readonly AspectDump[],
  maxBytes = DEFAULT_IMPORT_BATCH_BYTES,
): ImportPlan {
  const batches: ImportBatch[] = [];
  const skipped: SkippedItem[] = [];
  for (const { aspect, elements } of dumps) {
    let current: ElementInput[] = [];
    let size = 0;
    let start = 0;
    const flush = () => {
      batches.push({ aspect, elements: current, start });
      start += current.length;
      current = [];
      size = 0;
    };
    for (const element of elements) {
      const bytes = byteSize(element);
      if (bytes > maxBytes) {
        skipped.push({
          item: `/${aspect.name}/${element.id}`,
          reason: `element of ${bytes} bytes exceeds the batch bound of ${maxBytes} bytes`,
        });
        continue;
      }
      if (size + bytes > maxBytes && current.length > 0) flush();
      current.push(element);
      size += bytes;
    }
    if (current.length > 0 || start === 0) flush();
  }
  return { batches, skipped };
}

/** Sends one batch: the first creates the aspect (`mode` applies), later ones insert at their `start`. */
export async function sendImportBatch(
  resources: ResourceService,
  batch: ImportBatch,
  mode: ImportRequest['mode'],
): Promise<void> {
  const { aspect, elements, start } = batch;
  if (start === 0) {
    await resources.import({ schemaVersion: SCHEMA_VERSION, aspects: [{ aspect, elements }], mode });
    return;
  }
  if (elements.length === 0) return;
  await resources.apply({
    operations: [
      {
        type: 'splice',
        location: { uri: `/${aspect.name}`, childrenKey: null },
        start,
        end: start,
        data: elements,
      },
    ],
  });
}

/** Sends a plan batch by batch, reporting progress after each (with the elements sent so far, children counted). */
export async function runImportPlan(
  resources: ResourceService,
  plan: ImportPlan,
  mode: ImportRequest['mode'],
  onBatch: (done: number, total: number, batch: ImportBatch, elements: number) => void = () => undefined,
): Promise<ImportReport> {
  const aspects = new Set<string>();
  let elements = 0;
  for (const [index, batch] of plan.batches.entries()) {
    await sendImportBatch(resources, batch, mode);
    aspects.add(batch.aspect.name);
    elements += countInputs(batch.elements);
    onBatch(index + 1, plan.batches.length, batch, elements);
  }
  return { aspects: aspects.size, elements, batches: plan.batches.length, skipped: plan.skipped };
}

/**
 * Reads a NovelRAG project directory: its `aspect.yml` and every file the config names (which must stay inside the
 * directory). YAML files the config does not name are reported as skipped; a named file that is missing is left
 * out, so `projectToDumps` rejects it.
 */
export async function readProjectDir(
  dir: string,
): Promise<{ project: NovelragProject; skipped: SkippedItem[] }> {
  const root = path.resolve(dir);
  const config = await readFile(path.join(root, PROJECT_CONFIG_FILE), 'utf8').catch(() => {
    throw new ResourceError('VALIDATION_FAILED', `${dir} holds no readable ${PROJECT_CONFIG_FILE}`);
  });
  const files = projectFilesRecord();
  for (const name of configPaths(config)) {
    const file = path.resolve(root, name);
    if (!file.startsWith(root + path.sep)) {
      throw new ResourceError('VALIDATION_FAILED', `file ${name} named by the config is outside ${dir}`);
    }
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) files[name] = text;
  }
  const named = new Set(Object.keys(files).map((name) => path.resolve(root, name)));
  const skipped = (await readdir(root))
    .filter((f) => /\.ya?ml$/i.test(f) && f !== PROJECT_CONFIG_FILE && !named.has(path.join(root, f)))
    .map((f) => ({ item: f, reason: `not named by ${PROJECT_CONFIG_FILE}` }));
  return { project: { config, files }, skipped };
}

/** Reads a project directory and plans its batches (unnamed files and oversized elements are reported). */
export async function planProjectDir(
  dir: string,
  maxBytes = DEFAULT_IMPORT_BATCH_BYTES,
): Promise<ImportPlan> {
  const { project, skipped } = await readProjectDir(dir);
  const plan = planImportBatches(projectToDumps(project), maxBytes);
  return { batches: plan.batches, skipped: [...skipped, ...plan.skipped] };
}

/** The aspect of a batch, for progress lines. */
export const batchLabel = (b: { aspect: Aspect; elements: readonly unknown[]; start: number }) =>
  `${b.aspect.name} [${b.start}..${b.start + b.elements.length})`;
