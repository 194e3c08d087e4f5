import { ApiError } from '../http/api-error';
import { readBoundedBody } from './import-stream';

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

  it('refuses an empty upload', async () => {
    expect(await failure(readBoundedBody(request([]), 10))).toEqual({
      code: 'VALIDATION_FAILED',
      status: 400,
    });
  });
});
