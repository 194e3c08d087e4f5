import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { KvGoalStore, startService, type RunningService } from '@novelrag/bus';
import { Streams, Subjects } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { gatewayDefinition } from './service.definition';

const KEY = 'test-key-0123456789abcdef';

// Client mistakes that once answered 500, Idempotency-Key races and SSE resumes at the end of a goal (found in a
// review; each failed before its fix).
describe('gateway edge cases (real NATS, gateway in process, no orchestrator)', () => {
  let nats: NatsServerHandle;
  let gateway: RunningService<object>;
  let nc: NatsConnection;
  let url: string;

  const http = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${KEY}`,
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  const post = (path: string, body: unknown, init: RequestInit = {}) =>
    http(path, { method: 'POST', body: JSON.stringify(body), ...init });

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    gateway = await startService(gatewayDefinition, {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_API_KEYS: KEY,
      NOVELRAG_LOG_LEVEL: 'silent',
    });
    url = gateway.url!;
  });

  afterAll(async () => {
    await gateway?.close();
    await nc?.close();
    await nats?.stop();
  });

  it.each(['a.b', 'a*b', 'a!b', 'a%20b'])(
    'GET /v1/goals/%s/events answers 400 (not 500) for a malformed goal id',
    async (id) => {
      const res = await http(`/v1/goals/${id}/events`);
      const body = (await res.json()) as { code: string };
      expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    },
  );

  it.each([
    ['request: null', { request: null }],
    ['goal: null', { goal: null }],
    ['limits as an array', { request: 'x', limits: [{ maxSteps: 5 }] }],
  ])('POST /v1/goals with %s is a 400, not a 500', async (_name, body) => {
    const res = await post('/v1/goals', body);
    const json = (await res.json()) as { code: string };
    expect({ status: res.status, code: json.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('POST /v1/goals/:id/interactions/:iid with {"approved": null} is a 400, not a 500', async () => {
    const res = await post('/v1/goals', { request: 'ask me' });
    const { goalId } = (await res.json()) as { goalId: string };
    const store = await KvGoalStore.open(nc);
    const now = new Date().toISOString();
    await store.mutate(goalId, (g) => ({
      ...g,
      status: 'waiting_for_input',
      pendingInteraction: {
        interactionId: 'i-1',
        tool: 'ResourceWriteTool',
        step: 0,
        kind: 'confirm',
        message: 'apply?',
        createdAt: now,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    }));
    const answer = await post(`/v1/goals/${goalId}/interactions/i-1`, { approved: null });
    const json = (await answer.json()) as { code: string };
    expect({ status: answer.status, code: json.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('a concurrent submit with the same Idempotency-Key is never answered 202 for a goal that no stream holds', async () => {
    // The stream ack is slow (here: GOALS stream unavailable and the publish times out after 5 s).
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(Streams.goals.name);
    const blackhole = nc.subscribe(Subjects.goalSubmitted, { callback: () => undefined });
    await nc.flush();
    try {
      const headers = { 'idempotency-key': 'race-1' };
      const first = post('/v1/goals', { request: 'write chapter 1' }, { headers });
      await new Promise((r) => setTimeout(r, 300));
      const second = await post('/v1/goals', { request: 'write chapter 1' }, { headers });
      const secondBody = (await second.json()) as { goalId?: string; code?: string };
      const firstRes = await first;
      // Neither is told "accepted": the goal is in no stream. The second published again before answering, and
      // its publish failed too; the record stays queued for a retry with the key (which publishes it).
      expect({ first: firstRes.status, second: second.status }).toEqual({ first: 503, second: 503 });
      expect(secondBody.goalId).toBeUndefined();
    } finally {
      blackhole.unsubscribe();
      await jsm.streams.add({
        name: Streams.goals.name,
        subjects: [Subjects.goalSubmitted],
      });
    }
  }, 20_000);

  it('a retried Idempotency-Key submit after a crash between KV create and stream publish is re-published', async () => {
    // The gateway stored the record, then died before publishing (simulated by writing the record as GoalStore.create
    // does). The client retries with its Idempotency-Key.
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(Streams.goals.name).catch(() => null);
    if (!info) await jsm.streams.add({ name: Streams.goals.name, subjects: [Subjects.goalSubmitted] });
    await jsm.streams.delete(Streams.goals.name);
    const headers = { 'idempotency-key': 'crash-1' };
    const store = await KvGoalStore.open(nc);
    // principal = sha256(key) hex[0..12]
    const principal = createHash('sha256').update(KEY).digest('hex').slice(0, 12);
    const goalId = `g-${createHash('sha256').update(`${principal}:crash-1`).digest('hex').slice(0, 24)}`;
    const now = new Date().toISOString();
    await store.create({
      schemaVersion: 1,
      goalId,
      threadId: goalId,
      status: 'queued',
      source: 'user',
      goal: null,
      request: 'write chapter 2',
      lang: null,
      beliefs: [],
      limits: {},
      steps: [],
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      cancelRequested: false,
      idempotencyKey: 'crash-1',
      createdAt: now,
      updatedAt: now,
    } as never);
    await jsm.streams.add({ name: Streams.goals.name, subjects: [Subjects.goalSubmitted] });
    const retry = await post('/v1/goals', { request: 'write chapter 2' }, { headers });
    expect(retry.status).toBe(202);
    expect(((await retry.json()) as { goalId: string }).goalId).toBe(goalId);
    const stream = await jsm.streams.info(Streams.goals.name);
    // the goal the client was told is accepted must be in the GOALS work queue
    expect(stream.state.messages).toBe(1);
  });

  it('SSE: resuming after the final event of a finished goal ends the stream (does not hang)', async () => {
    const res = await post('/v1/goals', { request: 'finish me' });
    const { goalId } = (await res.json()) as { goalId: string };
    const fixture = {
      default: JSON.parse(
        readFileSync(
          path.join(__dirname, '../../../libs/contracts/fixtures/valid/TraceEvent/goal-completed.json'),
          'utf8',
        ),
      ) as Record<string, unknown>,
    };
    const ack = await jetstream(nc).publish(
      Subjects.trace(goalId, 'goal.completed'),
      JSON.stringify({ ...fixture.default, goalId, threadId: goalId, seq: 0 }),
    );
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 4_000);
    let text = '';
    try {
      const sse = await http(`/v1/goals/${goalId}/events`, {
        headers: { 'last-event-id': String(ack.seq) },
        signal: ctrl.signal,
      });
      const reader = sse.body!.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (text.includes('event: end')) break;
      }
    } catch {
      // aborted: the stream never ended
    } finally {
      clearTimeout(timer);
      ctrl.abort();
    }
    expect(text).toContain('event: end');
  });

  it('Idempotency-Key reused with a different threadId is a 409, not the other goal', async () => {
    const headers = { 'idempotency-key': 'thread-1' };
    const a = await post('/v1/goals', { request: 'same text', threadId: 'novel-a' }, { headers });
    const b = await post('/v1/goals', { request: 'same text', threadId: 'novel-b' }, { headers });
    expect(a.status).toBe(202);
    expect(b.status).toBe(409);
  });
  it('uploads: two held open take both slots (a third is a 429); aborted midway, they free them', async () => {
    const target = new URL(url);
    const holdOpen = () => {
      const req = request({
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/v1/projects/import/upload',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/gzip' },
      });
      req.on('error', () => undefined);
      req.write(Buffer.alloc(1024)); // chunked, never ended: a slow upload
      return req;
    };
    const upload = async () => {
      const res = await http('/v1/projects/import/upload', {
        method: 'POST',
        body: 'not an archive',
        headers: { 'content-type': 'application/x-tar' },
      });
      return `${res.status} ${((await res.json()) as { code: string }).code}`;
    };
    // Each answer below is immediate; the polls only wait for the server to see the held uploads come and go.
    const until = async (answer: string) => {
      let last = '';
      for (let i = 0; i < 600 && last !== answer; i += 1) {
        last = await upload();
        if (last !== answer) await new Promise((r) => setTimeout(r, 100));
      }
      return last;
    };
    const held = [holdOpen(), holdOpen()];
    expect(await until('429 RATE_LIMITED')).toBe('429 RATE_LIMITED');
    for (const req of held) req.destroy();
    expect(await until('400 VALIDATION_FAILED')).toBe('400 VALIDATION_FAILED');
  });
});
