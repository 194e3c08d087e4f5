import { FakeOpenAIServer } from '@novelrag/testkit';
import { z } from 'zod';
import type { OpenAIChatModel } from './openai-chat-model';
import { fakeModelSuite } from './test/fake-model-suite';

/** The error a promise rejects with (fails the test when it resolves). */
function rejectionOf(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}

const Answer = z.object({ answer: z.string() });
const messages = [{ role: 'user', content: 'Question?' }] as const;

describe('OpenAIChatModel failures (fake server, real SDK)', () => {
  const suite = fakeModelSuite({ apiKey: 'sk-very-secret-key' });
  const { events, model } = suite;
  const ask = (m: OpenAIChatModel, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    m.structured({ messages, purpose: 'analyze', schema: Answer, schemaName: 'answer', ...extra });

  it('turns a slow answer into ModelTimeoutError at the per-call deadline, transport retries included', async () => {
    suite.server.always({}, { delayMs: 10_000, then: { json: { answer: 'late' } } });
    const started = Date.now();
    await expect(ask(model({ maxRetries: 2 }), { timeoutMs: 200 })).rejects.toMatchObject({
      name: 'ModelTimeoutError',
      code: 'TIMEOUT',
      retryable: true,
      timeoutMs: 200,
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(events).toEqual([expect.objectContaining({ outcome: 'timeout', errorCode: 'TIMEOUT' })]);
  });

  it('uses the adapter default timeout when the call has none', async () => {
    suite.server.always({}, { delayMs: 10_000 });
    await expect(ask(model({ timeoutMs: 150 }))).rejects.toMatchObject({
      name: 'ModelTimeoutError',
      timeoutMs: 150,
    });
  });

  it('rejects with CancelledError when the signal aborts in flight', async () => {
    suite.server.always({}, { delayMs: 10_000 });
    const controller = new AbortController();
    const call = ask(model(), { signal: controller.signal });
    await suite.server.waitForRequests(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'CancelledError', code: 'CANCELLED', retryable: false });
    expect(events).toEqual([expect.objectContaining({ outcome: 'cancelled' })]);
  });

  it('rejects an already aborted signal without calling', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(ask(model(), { signal: controller.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(suite.server.requests).toHaveLength(0);
  });

  it('maps HTTP 500 to a retryable ModelUnavailableError after the transport retries', async () => {
    suite.server.always({}, { status: 500, message: 'upstream exploded: SECRET-DETAIL', code: 'boom' });
    const call = ask(model({ maxRetries: 1 }));
    await expect(call).rejects.toMatchObject({
      name: 'ModelUnavailableError',
      code: 'MODEL_UNAVAILABLE',
      retryable: true,
      details: expect.objectContaining({ status: 500, providerCode: 'boom' }),
    });
    const err = await rejectionOf(call);
    expect(err.message).toContain('HTTP 500');
    expect(err.message).not.toContain('SECRET-DETAIL');
    expect(err.message).not.toContain('sk-very-secret-key');
    expect(suite.server.chatRequests()).toHaveLength(2); // the request plus one transport retry
  });

  it('maps HTTP 401 to a non-retryable ModelUnavailableError without retrying', async () => {
    suite.server.always({}, { status: 401, message: 'bad key', type: 'invalid_request_error' });
    await expect(ask(model({ maxRetries: 2 }))).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      retryable: false,
      details: expect.objectContaining({ status: 401 }),
    });
    expect(suite.server.chatRequests()).toHaveLength(1);
  });

  it('maps an unreachable suite.server to a retryable ModelUnavailableError', async () => {
    const gone = await FakeOpenAIServer.start();
    const baseURL = gone.baseURL;
    await gone.close();
    await expect(ask(model({ baseURL }))).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      retryable: true,
    });
  });

  it('answers unscripted requests with a clear 500 that the SDK does not retry, and records them', async () => {
    await expect(ask(model({ maxRetries: 2 }))).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    expect(suite.server.unmatched).toHaveLength(1);
    expect(() => suite.server.assertDone()).toThrow(
      /unmatched requests: structured chat request, schema "answer"/,
    );
  });
});
