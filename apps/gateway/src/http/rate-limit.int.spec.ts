import 'reflect-metadata';
import { startService, type RunningService } from '@novelrag/bus';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { GatewayEnv } from '../config';
import { gatewayDefinition } from '../service.definition';
import { KvRateLimiter } from './rate-limiter';

const KEY = 'test-key-0123456789abcdef';
const OTHER_KEY = 'other-key-0123456789abcdef';

describe('gateway rate limit shared by every gateway instance (real NATS KV)', () => {
  let nats: NatsServerHandle;
  let gateways: RunningService<GatewayEnv>[];

  const get = (gateway: RunningService<GatewayEnv>, path: string, key: string | null = KEY) =>
    fetch(`${gateway.url!}${path}`, key ? { headers: { authorization: `Bearer ${key}` } } : {});

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    const env = {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_API_KEYS: `${KEY},${OTHER_KEY}`,
      NOVELRAG_LOG_LEVEL: 'silent',
      NOVELRAG_RATE_LIMIT_PER_MIN: '3',
    };
    gateways = [await startService(gatewayDefinition, env), await startService(gatewayDefinition, env)];
  });

  afterAll(async () => {
    for (const gateway of gateways ?? []) await gateway.close();
    await nats?.stop();
  });

  it('counts one key across instances, says so in RateLimit-* headers, and answers 429 past the limit', async () => {
    const [a, b] = [gateways[0]!, gateways[1]!];
    const remaining: (string | null)[] = [];
    for (const gateway of [a, a, b]) {
      const res = await get(gateway, '/v1/goals?limit=1');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      remaining.push(res.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    for (const gateway of [b, a]) {
      const refused = await get(gateway, '/v1/goals?limit=1');
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }

    // Another key has its own budget; health stays reachable without a key and without counting.
    const other = await get(b, '/v1/goals?limit=1', OTHER_KEY);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('2');
    expect((await get(a, '/health/live', null)).status).toBe(200);
  });

  it('counts a burst of one principal exactly, across two instances counting at once', async () => {
    const nc = await connect({ servers: nats.url });
    try {
      const logger = { warn: () => undefined, info: () => undefined };
      const options = { limit: 10, windowMs: 60_000, bucket: 'rate-limits-burst' };
      const [one, two] = [
        new KvRateLimiter(nc, options, logger as never),
        new KvRateLimiter(nc, options, logger as never),
      ];
      const decisions = await Promise.all(
        Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? one : two).take('burst')),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining);
      expect(new Set(remaining).size).toBe(10); // every allowed request saw its own count
      // Both instances see the spent budget afterwards (the one that counted last, and the other after a conflict).
      expect(await one.take('burst')).toMatchObject({ allowed: false });
      expect(await two.take('burst')).toMatchObject({ allowed: false });
    } finally {
      await nc.close();
    }
  });

  it('counts in the instance alone while the bucket cannot be reached, and logs that once', async () => {
    const nc = await connect({ servers: nats.url });
    await nc.close();
    const warnings: string[] = [];
    const logger = { warn: (msg: string) => warnings.push(msg), info: () => undefined };
    const limiter = new KvRateLimiter(nc, { limit: 1, windowMs: 60_000 }, logger as never);
    expect(await limiter.take('p')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.take('p')).toMatchObject({ allowed: false });
    expect(warnings).toEqual(['rate-limit bucket unreachable: counting in this instance only']);
  });
});

describe('gateway rate limit: counts reserved per write (real NATS KV)', () => {
  let nats: NatsServerHandle;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
  });

  afterAll(async () => {
    await nats?.stop();
  });

  /** Two limiters (two gateway instances) on one bucket, over one connection. */
  async function withLimiters(
    options: { limit: number; windowMs: number; bucket: string },
    body: (nc: NatsConnection, one: KvRateLimiter, two: KvRateLimiter) => Promise<void>,
  ): Promise<void> {
    const nc = await connect({ servers: nats.url });
    try {
      const logger = { warn: () => undefined, info: () => undefined } as never;
      await body(nc, new KvRateLimiter(nc, options, logger), new KvRateLimiter(nc, options, logger));
    } finally {
      await nc.close();
    }
  }

  it('reserves 1 % of the limit per write: the next requests are counted without a write, and shared', async () => {
    const options = { limit: 1000, windowMs: 60_000, bucket: 'rate-limits-reserve' };
    await withLimiters(options, async (nc, one, two) => {
      const decisions = [];
      for (let i = 0; i < 25; i++) decisions.push(await one.take('p'));
      expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: 25 }, (_, i) => 999 - i));
      // 25 requests in 3 writes, each counting its request and reserving 10: the window says 33.
      const entry = await (await new Kvm(nc).open(options.bucket)).get('p');
      expect(entry?.revision).toBe(3);
      expect(entry?.json()).toMatchObject({ count: 33 });
      // The other instance counts after what the first one reserved.
      expect(await two.take('p')).toMatchObject({ allowed: true, remaining: 1000 - 34 });
    });
  });

  it('never reserves past the limit: the budget is granted once across instances', async () => {
    const options = { limit: 200, windowMs: 60_000, bucket: 'rate-limits-reserve-end' };
    await withLimiters(options, async (_nc, one, two) => {
      const remaining = [];
      for (let i = 0; i < 200; i++) remaining.push((await one.take('p')).remaining);
      expect(remaining).toEqual(Array.from({ length: 200 }, (_, i) => 199 - i));
      expect(await one.take('p')).toMatchObject({ allowed: false, remaining: 0 });
      expect(await two.take('p')).toMatchObject({ allowed: false, remaining: 0 });
    });
  });
});
