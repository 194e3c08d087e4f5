import { z } from 'zod';
import { CliError } from './errors';
import { GatewayClient } from './gateway-client';

/** A fetch that answers the given statuses in turn (Retry-After: 0), counting calls. */
function scripted(statuses: number[]) {
  const calls: { method: string; headers: Record<string, string> }[] = [];
  const fetchImpl = (async (_url: string, init: RequestInit) => {
    calls.push({ method: init.method ?? 'GET', headers: init.headers as Record<string, string> });
    const status = statuses[Math.min(calls.length - 1, statuses.length - 1)] ?? 200;
    const body =
      status === 200
        ? { ok: true }
        : { code: status === 503 ? 'UNAVAILABLE' : 'TIMEOUT', message: 'bus busy' };
    return new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'retry-after': '0' },
    });
  }) as unknown as typeof fetch;
  return { calls, client: new GatewayClient({ url: 'http://gw.test', timeoutMs: 1_000, fetch: fetchImpl }) };
}

const Ok = z.object({ ok: z.literal(true) });

describe('GatewayClient retries of 503/504 (Retry-After honoured, bounded)', () => {
  it('repeats a GET after a 503 or 504', async () => {
    const { calls, client } = scripted([503, 504, 200]);
    await expect(client.request('/v1/goals', Ok)).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(3);
  });

  it('repeats a POST only when it carries an Idempotency-Key', async () => {
    const unkeyed = scripted([503, 200]);
    await expect(
      unkeyed.client.request('/v1/goals', Ok, { method: 'POST', body: { request: 'x' } }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(unkeyed.calls).toHaveLength(1);

    const keyed = scripted([503, 200]);
    await expect(
      keyed.client.request('/v1/goals', Ok, {
        method: 'POST',
        body: { request: 'x' },
        headers: { 'idempotency-key': 'k-1' },
      }),
    ).resolves.toEqual({ ok: true });
    expect(keyed.calls.map((c) => c.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
  });

  it('gives up after three repeats with the last coded error, and never repeats a client error', async () => {
    const busy = scripted([503]);
    const err = await busy.client.request('/v1/goals', Ok).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', status: 503, retryAfterS: 0 });
    expect(busy.calls).toHaveLength(4);

    const bad = scripted([404]);
    await expect(bad.client.request('/v1/goals/x', Ok)).rejects.toMatchObject({ status: 404 });
    expect(bad.calls).toHaveLength(1);
  });
});
