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
  destroy?: () => void;
}

/** How long an upload's body may go without a byte, and how long it may take in all, before its slot is freed. */
export interface BodyDeadlines {
  readonly idleMs: number;
  readonly totalMs: number;
}

/**
 * An upload holds one of the few upload slots while its body arrives: a client that stops sending (or trickles a
 * byte at a time) would hold it until Node's 5-minute request timeout. 32 MiB at a slow 1 MiB/s takes 32 s.
 */
export const UPLOAD_DEADLINES: BodyDeadlines = { idleMs: 15_000, totalMs: 120_000 };

/**
 * The raw request body, refused (413) past `maxBytes`: by its Content-Length at once, or as it arrives; refused
 * (`TIMEOUT`, the request destroyed) when no data came for `idleMs` or the whole body took longer than `totalMs`.
 */
export async function readBoundedBody(
  req: BodyRequest,
  maxBytes: number,
  deadlines: BodyDeadlines = UPLOAD_DEADLINES,
): Promise<Buffer> {
  const tooLarge = () =>
    new ApiError('PAYLOAD_TOO_LARGE', `the upload is larger than ${maxBytes} bytes`, { maxBytes });
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  const iterator = req[Symbol.asyncIterator]();
  const deadline = Date.now() + deadlines.totalMs;
  try {
    for (;;) {
      const wait = Math.min(deadlines.idleMs, deadline - Date.now());
      const next = await withinMs(iterator.next(), wait);
      if (next === STALLED) throw stalled(deadlines, Date.now() >= deadline);
      if (next.done) break;
      size += next.value.length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(next.value);
    }
  } catch (err) {
    req.destroy?.(); // a refused body is not read further: the connection goes
    throw err;
  }
  if (size === 0)
    throw new ApiError('VALIDATION_FAILED', 'the upload is empty: send the project as a tar archive');
  return Buffer.concat(chunks);
}

const STALLED = Symbol('stalled');

/** `work`, or STALLED when it has not settled within `ms` (its timer never outlives it). */
async function withinMs<T>(work: Promise<T>, ms: number): Promise<T | typeof STALLED> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof STALLED>(
    (resolve) => (timer = setTimeout(() => resolve(STALLED), Math.max(0, ms))),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function stalled(deadlines: BodyDeadlines, overall: boolean): ApiError {
  return overall
    ? new ApiError('TIMEOUT', `the upload took longer than ${deadlines.totalMs} ms`, {
        totalMs: deadlines.totalMs,
      })
    : new ApiError('TIMEOUT', `the upload sent nothing for ${deadlines.idleMs} ms`, {
        idleMs: deadlines.idleMs,
      });
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
