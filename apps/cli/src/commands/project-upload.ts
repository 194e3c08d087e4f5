import { gzipSync } from 'node:zlib';
import {
  ImportProgressEvent,
  type NovelragProject,
  PROJECT_CONFIG_FILE,
  type SkippedItem,
} from '@novelrag/resource-client';
import { pack } from 'tar-stream';
import { CliError } from '../errors';
import type { GatewayClient } from '../gateway-client';
import type { CliIo } from '../io';

/** Bound on an uploaded import, from the first byte sent to the report. */
export const UPLOAD_TIMEOUT_MS = 30 * 60_000;
const NDJSON = 'application/x-ndjson';

/** The project (the config and the files it names) as a gzipped tar archive. */
export async function projectArchive(project: NovelragProject): Promise<Uint8Array> {
  const tar = pack();
  tar.entry({ name: PROJECT_CONFIG_FILE }, project.config);
  for (const [name, text] of Object.entries(project.files)) tar.entry({ name }, text);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return new Uint8Array(gzipSync(Buffer.concat(chunks)));
}

/** The lines of an NDJSON answer as they arrive, each parsed with the import's progress contract. */
async function* progressEvents(res: Response): AsyncGenerator<ImportProgressEvent> {
  const decoder = new TextDecoder();
  let rest = '';
  const parse = (line: string) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      json = undefined;
    }
    const event = ImportProgressEvent.safeParse(json);
    if (!event.success)
      throw new CliError('protocol', 'BAD_RESPONSE', 'the gateway sent an unknown import event');
    return event.data;
  };
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) yield parse(line);
  }
  if (rest.trim()) yield parse(rest);
}

/** A failure while the stream is read, coded: the upload's bound running out, or the connection lost. */
function streamFailure(err: unknown): CliError {
  if (err instanceof CliError) return err;
  // Duck-typed: fetch's TimeoutError is a DOMException, not always an Error of this realm.
  const {
    name,
    message = String(err),
    cause,
  } = (err ?? {}) as { name?: string; message?: string; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError')
    return new CliError('timeout', 'TIMEOUT', `the import sent no report within ${UPLOAD_TIMEOUT_MS} ms`);
  const why = cause instanceof Error ? `${message}: ${cause.message}` : message;
  return new CliError(
    'protocol',
    'STREAM_LOST',
    `the import's progress stream broke off (${why}); the batches it reported stay imported`,
  );
}

export interface UploadReport {
  aspects: number;
  elements: number;
  batches: number;
  skipped: SkippedItem[];
}

/**
 * Uploads the project to `POST /v1/projects/import/upload` and follows its progress stream: a line per batch the
 * gateway sends (`batch 3/12: character [240..360)`), then its report; an error event is the import's coded error.
 */
export async function uploadProject(
  client: GatewayClient,
  io: CliIo,
  project: NovelragProject,
  options: { mode: 'merge' | 'replace'; quiet: boolean },
): Promise<UploadReport> {
  const res = await client.send('/v1/projects/import/upload', await projectArchive(project), {
    contentType: 'application/gzip',
    accept: NDJSON,
    query: { mode: options.mode },
    timeoutMs: UPLOAD_TIMEOUT_MS,
  });
  try {
    for await (const event of progressEvents(res)) {
      if (event.event === 'progress') {
        const line = `batch ${event.batch}/${event.batches}: ${event.label}`;
        if (options.quiet) io.status(line);
        else io.out(line);
      }
      if (event.event === 'error')
        throw new CliError('api', event.error.code, event.error.message, event.error.details);
      if (event.event === 'report') return event.report;
    }
  } catch (err) {
    throw streamFailure(err);
  }
  throw new CliError('protocol', 'BAD_RESPONSE', 'the import stream ended without a report');
}
