import { CliError } from '../errors';
import { GatewayClient } from '../gateway-client';
import type { CliIo } from '../io';
import { uploadProject } from './project-upload';

/** A gateway that answers the upload with these NDJSON lines, then fails the stream with `failure` (if any). */
function gateway(lines: string[], failure?: Error): GatewayClient {
  const fetchImpl = (async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const line of lines) controller.enqueue(encoder.encode(`${line}\n`));
        if (failure) controller.error(failure);
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
  }) as unknown as typeof fetch;
  return new GatewayClient({ url: 'http://gw.test', timeoutMs: 1_000, fetch: fetchImpl });
}

const io = { out: () => undefined, status: () => undefined } as unknown as CliIo;
const project = { config: 'a: {path: a.yml}\n', files: { 'a.yml': '[]\n' } };
const PLAN = JSON.stringify({ event: 'plan', batches: 2, skipped: 0 });

async function failure(client: GatewayClient): Promise<{ code: string; exitCode: number }> {
  const err: unknown = await uploadProject(client, io, project, { mode: 'merge', quiet: true }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof CliError)) throw new Error(`expected a CliError, got ${String(err)}`);
  return { code: err.code, exitCode: err.exitCode };
}

describe('novelrag import --upload: a progress stream that goes wrong', () => {
  it('a line that is not JSON is a coded BAD_RESPONSE', async () => {
    expect(await failure(gateway([PLAN, '<html>502 Bad Gateway</html>']))).toEqual({
      code: 'BAD_RESPONSE',
      exitCode: 4,
    });
  });

  it('the upload bound running out mid-stream is a TIMEOUT (exit 5), as before the answer', async () => {
    const timedOut = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(await failure(gateway([PLAN], timedOut))).toEqual({ code: 'TIMEOUT', exitCode: 5 });
  });

  it('the connection lost mid-stream is coded, naming what was lost', async () => {
    const lost = new TypeError('terminated', { cause: new Error('other side closed') });
    expect(await failure(gateway([PLAN], lost))).toEqual({ code: 'STREAM_LOST', exitCode: 4 });
  });
});
