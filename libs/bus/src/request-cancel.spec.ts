import { RequestOne } from '@nats-io/transport-node';
import { quietRequestCancel } from './request-cancel';

type Mux = ConstructorParameters<typeof RequestOne>[0];

/** A request as nats-core builds it, over a stand-in for the connection's request table. */
function request(): { r: RequestOne; removed: RequestOne[] } {
  const removed: RequestOne[] = [];
  const mux = { cancel: (r: RequestOne) => removed.push(r) } as unknown as Mux;
  return { r: new RequestOne(mux, 'subject', { timeout: 60_000 }, false), removed };
}

describe('quietRequestCancel', () => {
  beforeAll(() => quietRequestCancel());

  it('ends a request as before (removed from the table, its promise rejected) without capturing a stack', async () => {
    const { r, removed } = request();
    const limit = Error.stackTraceLimit;
    r.cancel();
    const err = (await r.deferred.catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('cancelled');
    expect(err.stack).not.toMatch(/\n\s+at /);
    expect(removed).toEqual([r]);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('keeps the error it is given, and a reply still resolves the request', async () => {
    const failed = request();
    const given = new Error('publish failed');
    failed.r.cancel(given);
    await expect(failed.r.deferred).rejects.toBe(given);

    const answered = request();
    const reply = { data: new Uint8Array() };
    answered.r.resolver(null, reply as never);
    await expect(answered.r.deferred).resolves.toBe(reply);
    expect(answered.removed).toEqual([answered.r]);
  });

  it('is installed once: calling it again does not wrap cancel twice', () => {
    const cancel = RequestOne.prototype.cancel;
    quietRequestCancel();
    expect(RequestOne.prototype.cancel).toBe(cancel);
  });
});
