import 'reflect-metadata';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startService, type RunningService } from '@novelrag/bus';
import { Streams } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { gatewayDefinition } from '../service.definition';

const KEY = 'test-key-0123456789abcdef';

describe('gateway goals API over HTTP (real NATS, JetStream and KV)', () => {
  let nats: NatsServerHandle;
  let gateway: RunningService<object>;
  let url: string;
  let nc: NatsConnection;

  const http = (path: string, init: RequestInit & { key?: string | null } = {}) => {
    const { key = KEY, headers, ...rest } = init;
    return fetch(`${url}${path}`, {
      ...rest,
      headers: {
        'content-type': 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(headers as Record<string, string> | undefined),
      },
    });
  };
  const post = (path: string, body: unknown, init: RequestInit & { key?: string | null } = {}) =>
    http(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), ...init });

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    gateway = await startService(gatewayDefinition, {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_API_KEYS: KEY,
      NOVELRAG_LOG_LEVEL: 'silent',
      NOVELRAG_BODY_LIMIT_BYTES: '4096',
    });
    url = gateway.url!;
    nc = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await nc?.close();
    await gateway?.close();
    await nats?.stop();
  });

  it('accepts a goal with 202, and GET returns it queued', async () => {
    const res = await post('/v1/goals', {
      request: 'Create a protagonist named 余归',
      lang: 'zh',
      threadId: 'novel-1',
    });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { goalId: string; status: string };
    expect(accepted.status).toBe('queued');
    expect(res.headers.get('location')).toBe(`/v1/goals/${accepted.goalId}`);
    const goal = await (await http(`/v1/goals/${accepted.goalId}`)).json();
    expect(goal).toMatchObject({
      goalId: accepted.goalId,
      status: 'queued',
      request: 'Create a protagonist named 余归',
      threadId: 'novel-1',
      lang: 'zh',
    });
  });

  it('records the agent kind of a goal (novelrag unless named) and shows it in the record and the listing', async () => {
    const submit = async (body: Record<string, unknown>) =>
      ((await (await post('/v1/goals', { ...body, threadId: 'kinds' })).json()) as { goalId: string }).goalId;
    for (const goalId of [
      await submit({ goal: 'kind named', agent: 'novelrag' }),
      await submit({ goal: 'kind unnamed' }),
    ]) {
      expect(await (await http(`/v1/goals/${goalId}`)).json()).toMatchObject({ goalId, agent: 'novelrag' });
    }
    const list = (await (await http('/v1/goals?threadId=kinds')).json()) as { goals: { agent?: string }[] };
    expect(list.goals.map((g) => g.agent)).toEqual(['novelrag', 'novelrag']);
  });

  it('the same Idempotency-Key twice creates one goal; a different body with it is a conflict', async () => {
    const headers = { 'idempotency-key': 'order-42' };
    const a = await post('/v1/goals', { goal: 'Add a rival' }, { headers });
    const b = await post('/v1/goals', { goal: 'Add a rival' }, { headers });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    const [ga, gb] = [(await a.json()) as { goalId: string }, (await b.json()) as { goalId: string }];
    expect(gb.goalId).toBe(ga.goalId);
    const list = (await (await http('/v1/goals?limit=100')).json()) as { goals: { goalId: string }[] };
    expect(list.goals.filter((g) => g.goalId === ga.goalId)).toHaveLength(1);
    const c = await post('/v1/goals', { goal: 'Something else' }, { headers });
    expect(c.status).toBe(409);
    expect(await c.json()).toMatchObject({ code: 'CONFLICT' });
  });

  it('goals submitted together (many in flight, some with one Idempotency-Key) are each stored and queued once', async () => {
    // The gateway sends the acceptances of requests read in one event-loop turn to NATS together: each must still get
    // its own record and GOALS message, and the keyed repeats one goal.
    const jsm = await jetstreamManager(nc);
    const queuedBefore = (await jsm.streams.info(Streams.goals.name)).state.messages;
    const keyed = { headers: { 'idempotency-key': 'together-1' } };
    const responses = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) =>
        post('/v1/goals', { goal: `together ${i}`, threadId: 'together' }),
      ),
      ...Array.from({ length: 4 }, () =>
        post('/v1/goals', { goal: 'together keyed', threadId: 'together' }, keyed),
      ),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(24).fill(202));
    const ids = await Promise.all(
      responses.map(async (r) => ((await r.json()) as { goalId: string }).goalId),
    );
    expect(new Set(ids.slice(0, 20)).size).toBe(20);
    expect(new Set(ids.slice(20)).size).toBe(1);
    const list = (await (await http('/v1/goals?threadId=together&limit=100')).json()) as {
      goals: { goalId: string; status: string; goal: string }[];
    };
    expect(list.goals.map((g) => g.goalId).sort()).toEqual([...new Set(ids)].sort());
    expect(list.goals.every((g) => g.status === 'queued')).toBe(true);
    // One GOALS message per goal: the keyed repeats were published again and dropped by the stream as duplicates.
    expect((await jsm.streams.info(Streams.goals.name)).state.messages - queuedBefore).toBe(21);
  });

  it('lists with cursor pagination and filters', async () => {
    for (let i = 0; i < 3; i++)
      expect((await post('/v1/goals', { goal: `paged ${i}`, threadId: 'paging' })).status).toBe(202);
    const first = (await (await http('/v1/goals?threadId=paging&limit=2')).json()) as {
      goals: unknown[];
      nextCursor: string;
    };
    expect(first.goals).toHaveLength(2);
    const second = (await (
      await http(`/v1/goals?threadId=paging&limit=2&cursor=${first.nextCursor}`)
    ).json()) as {
      goals: unknown[];
      nextCursor: string | null;
    };
    expect(second.goals).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
  });

  it('cancels a queued goal at once; cancelling again is a conflict', async () => {
    const { goalId } = (await (await post('/v1/goals', { goal: 'to be cancelled' })).json()) as {
      goalId: string;
    };
    const res = await post(`/v1/goals/${goalId}/cancel`, {});
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({
      status: 'cancelled',
      cancelRequested: true,
      outcome: { status: 'cancelled' },
    });
    const again = await post(`/v1/goals/${goalId}/cancel`, {});
    expect(again.status).toBe(409);
  });

  it.each([
    ['malformed JSON', () => post('/v1/goals', '{"request": '), 400, 'VALIDATION_FAILED'],
    ['wrong type', () => post('/v1/goals', { request: 42 }), 400, 'VALIDATION_FAILED'],
    ['neither request nor goal', () => post('/v1/goals', { lang: 'en' }), 400, 'VALIDATION_FAILED'],
    ['both request and goal', () => post('/v1/goals', { request: 'a', goal: 'b' }), 400, 'VALIDATION_FAILED'],
    ['unknown field', () => post('/v1/goals', { request: 'a', admin: true }), 400, 'VALIDATION_FAILED'],
    [
      'bad limits',
      () => post('/v1/goals', { request: 'a', limits: { maxSteps: 0 } }),
      400,
      'VALIDATION_FAILED',
    ],
    ['bad lang', () => post('/v1/goals', { request: 'a', lang: 'not a lang!' }), 400, 'VALIDATION_FAILED'],
    [
      'unknown agent kind',
      () => post('/v1/goals', { request: 'a', agent: 'nope' }),
      400,
      'VALIDATION_FAILED',
    ],
    [
      'bad Idempotency-Key',
      () => post('/v1/goals', { request: 'a' }, { headers: { 'idempotency-key': 'has spaces' } }),
      400,
      'VALIDATION_FAILED',
    ],
    ['oversized body', () => post('/v1/goals', { request: 'x'.repeat(10_000) }), 413, 'PAYLOAD_TOO_LARGE'],
    ['missing key', () => post('/v1/goals', { request: 'a' }, { key: null }), 401, 'UNAUTHORIZED'],
    ['wrong key', () => http('/v1/goals', { key: 'wrong-key-0123456789abcdef' }), 401, 'UNAUTHORIZED'],
    ['unknown goal', () => http('/v1/goals/g-doesnotexist'), 404, 'NOT_FOUND'],
    ['malformed goal id', () => http('/v1/goals/bad.id'), 400, 'VALIDATION_FAILED'],
    ['bad cursor', () => http('/v1/goals?cursor=garbage'), 400, 'VALIDATION_FAILED'],
    ['bad status filter', () => http('/v1/goals?status=sleeping'), 400, 'VALIDATION_FAILED'],
    ['bad limit', () => http('/v1/goals?limit=1000'), 400, 'VALIDATION_FAILED'],
    ['unknown route', () => http('/v1/nothing'), 404, 'NOT_FOUND'],
  ] as const)('%s → %i %s', async (_label, request, status, code) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ code, message: expect.any(String) });
  });

  it('answers a body the contract refuses with 400 VALIDATION_FAILED naming each field and listing the issues', async () => {
    const res = await post('/v1/goals', { request: 'a', limits: { maxSteps: 0 }, lang: 'not a lang!' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string; details: { issues: string[] } };
    expect(body).toEqual({
      code: 'VALIDATION_FAILED',
      message: expect.any(String),
      details: { issues: expect.any(Array) },
    });
    expect(body.details.issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^lang: /),
        expect.stringMatching(/^limits\.maxSteps: /),
      ]),
    );
    expect(body.message).toBe(body.details.issues.join('; '));
  });

  it('serves an OpenAPI document listing the goal endpoints; health needs no key', async () => {
    const doc = (await (await http('/docs/openapi.json', { key: null })).json()) as {
      openapi: string;
      paths: Record<string, object>;
    };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/goals',
        '/v1/goals/{id}',
        '/v1/goals/{id}/cancel',
        '/health/live',
        '/health/ready',
      ]),
    );
    expect((await http('/health/ready', { key: null })).status).toBe(200);
  });
});
