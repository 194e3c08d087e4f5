import { ApiError } from '../http/api-error';
import { type ImportResponse, readBoundedBody } from './import-stream';
import { ProjectsController } from './projects.controller';

/** A request body arriving in chunks, with the headers a client sent. */
function request(chunks: Buffer[], headers: Record<string, string> = {}) {
  let read = 0;
  return {
    headers,
    get chunksRead() {
      return read;
    },
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        read += 1;
        yield chunk;
      }
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; status: number }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return { code: err.code, status: err.status };
}

describe('upload bodies', () => {
  it('reads a body within the bound', async () => {
    const body = await readBoundedBody(request([Buffer.from('ab'), Buffer.from('cd')]), 4);
    expect(body.toString()).toBe('abcd');
  });

  it('refuses by Content-Length before reading anything, and as the bytes arrive without one', async () => {
    const announced = request([Buffer.alloc(10)], { 'content-length': '11' });
    expect(await failure(readBoundedBody(announced, 10))).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(announced.chunksRead).toBe(0);
    const streamed = request([Buffer.alloc(6), Buffer.alloc(6), Buffer.alloc(6)]);
    expect(await failure(readBoundedBody(streamed, 10))).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(streamed.chunksRead).toBe(2);
  });

  it('gives up on a body that stalls, or trickles past its whole deadline, and drops the connection', async () => {
    let destroyed = 0;
    const silent = {
      headers: {},
      destroy: () => (destroyed += 1),
      [Symbol.asyncIterator]: (): AsyncIterator<Buffer> => ({ next: () => new Promise(() => undefined) }),
    };
    expect(await failure(readBoundedBody(silent, 10, { idleMs: 20, totalMs: 60_000 }))).toEqual({
      code: 'TIMEOUT',
      status: 504,
    });
    expect(destroyed).toBe(1);
    // A byte every few milliseconds, never ending: each wait is short, the whole is not.
    let sent = 0;
    const trickle = {
      headers: {},
      destroy: () => (destroyed += 1),
      [Symbol.asyncIterator]: (): AsyncIterator<Buffer> => ({
        next: () =>
          new Promise((resolve) =>
            setTimeout(() => resolve({ done: false, value: Buffer.from([sent++ % 256]) }), 2),
          ),
      }),
    };
    const slow = readBoundedBody(trickle, 1_000_000, { idleMs: 60_000, totalMs: 50 });
    await expect(slow).rejects.toMatchObject({ code: 'TIMEOUT', details: { totalMs: 50 } });
    expect(destroyed).toBe(2);
    expect(sent).toBeGreaterThan(0);
  });

  it('refuses an empty upload', async () => {
    expect(await failure(readBoundedBody(request([]), 10))).toEqual({
      code: 'VALIDATION_FAILED',
      status: 400,
    });
  });
});

/** A request whose body arrives only when `end()` is called (a slow upload), empty. */
function pendingRequest() {
  let end = () => undefined as void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  let reads = 0;
  return {
    headers: {},
    end,
    get reads() {
      return reads;
    },
    [Symbol.asyncIterator]: (): AsyncIterator<Buffer> => ({
      next: async () => {
        reads += 1;
        await ended;
        return { done: true, value: undefined };
      },
    }),
  };
}

const res = {} as ImportResponse;

describe('concurrent uploads', () => {
  it('holds at most two uploads at once (each may unpack to 64 MiB from a tiny body): a third is a 429', async () => {
    // The upload never reaches the resource-service here: every body below is empty or refused.
    const controller = new ProjectsController(undefined as never);
    const upload = (req: ReturnType<typeof pendingRequest>) =>
      controller.importUpload({ mode: 'merge' }, undefined, req, res);
    const first = pendingRequest();
    const second = pendingRequest();
    const running = [upload(first), upload(second)].map((p) => failure(p));
    const third = pendingRequest();
    const refused = failure(upload(third));
    for (const req of [first, second, third]) req.end();
    expect(await refused).toEqual({ code: 'RATE_LIMITED', status: 429 });
    expect(third.reads).toBe(0);
    expect(await Promise.all(running)).toEqual([
      { code: 'VALIDATION_FAILED', status: 400 },
      { code: 'VALIDATION_FAILED', status: 400 },
    ]);
    // The slots are freed whatever the outcome: a new upload is read again.
    const fourth = pendingRequest();
    const after = failure(upload(fourth));
    fourth.end();
    expect(await after).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
    expect(fourth.reads).toBe(1);
  });
});
