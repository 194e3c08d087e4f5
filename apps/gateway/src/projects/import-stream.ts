import type { ImportRequest } from '@novelrag/contracts';
import { isResourceError } from '@novelrag/repository';
import {
  batchLabel,
  type ImportPlan,
  type ImportProgressEvent,
  type ResourceService,
  runImportPlan,
} from '@novelrag/resource-client';
import { ApiError } from '../http/api-error';
import { toErrorResponse } from '../http/http-error.filter';

export const NDJSON = 'application/x-ndjson';

/** A project-format problem (bad YAML, a missing file, a bad archive) as a 4xx naming it; anything else passes through. */
export function asApiError(err: unknown): unknown {
  if (!isResourceError(err) || err.code !== 'VALIDATION_FAILED') return err;
  const details = err.details ? { ...err.details } : undefined;
  return new ApiError(
    details?.['tooLarge'] ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED',
    err.message,
    details,
  );
}

interface BodyRequest extends AsyncIterable<Buffer> {
  headers: Record<string, string | string[] | undefined>;
}

/** The raw request body, refused (413) past `maxBytes`: by its Content-Length at once, or as it arrives. */
export async function readBoundedBody(req: BodyRequest, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new ApiError('PAYLOAD_TOO_LARGE', `the upload is larger than ${maxBytes} bytes`, { maxBytes });
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  if (size === 0)
    throw new ApiError('VALIDATION_FAILED', 'the upload is empty: send the project as a tar archive');
  return Buffer.concat(chunks);
}

/**
 * Uploads handled at once. Each holds its body (up to 32 MiB), what it unpacks to (up to 64 MiB, from a body of a few
 * KiB when gzipped) and its plan until its import ends, so they are bounded: past the bound an upload is refused
 * (`429 RATE_LIMITED`) before its body is read.
 */
export class UploadSlots {
  private busy = 0;
  constructor(private readonly max: number) {}

  /** Runs `work` in a slot, freed whatever its outcome; refused at once when every slot is taken. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy >= this.max)
      throw new ApiError('RATE_LIMITED', `the gateway is already handling ${this.max} uploads: retry later`, {
        maxUploads: this.max,
      });
    this.busy += 1;
    try {
      return await work();
    } finally {
      this.busy -= 1;
    }
  }
}

export interface ImportResponse {
  status(code: number): ImportResponse;
  setHeader(name: string, value: string): void;
  json(body: unknown): void;
  write(chunk: string): boolean;
  end(): void;
}

/**
 * Runs a planned import and answers: the report as JSON, or with `Accept: application/x-ndjson` a line per event as
 * it happens (the plan, each batch sent, then the report, or the error that stopped it).
 */
export async function answerImport(
  resources: ResourceService,
  plan: ImportPlan,
  mode: ImportRequest['mode'],
  accept: string | undefined,
  res: ImportResponse,
): Promise<void> {
  if (!accept?.includes(NDJSON)) {
    const report = await runImportPlan(resources, plan, mode).catch((err: unknown) => {
      throw asApiError(err);
    });
    res.status(200).json(report);
    return;
  }
  res.status(200);
  res.setHeader('content-type', `${NDJSON}; charset=utf-8`);
  res.setHeader('cache-control', 'no-store');
  const send = (event: ImportProgressEvent) => res.write(`${JSON.stringify(event)}\n`);
  send({ event: 'plan', batches: plan.batches.length, skipped: plan.skipped.length });
  try {
    const report = await runImportPlan(resources, plan, mode, (batch, batches, sent, elements) =>
      send({ event: 'progress', batch, batches, label: batchLabel(sent), elements }),
    );
    send({ event: 'report', report });
  } catch (err) {
    send({ event: 'error', error: toErrorResponse(asApiError(err)).body });
  }
  res.end();
}
