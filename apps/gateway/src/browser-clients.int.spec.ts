import 'reflect-metadata';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startService, type RunningService } from '@novelrag/bus';
import { GoalSummary, GoalSummaryPage, SCHEMA_VERSION, ServicesReply, Subjects } from '@novelrag/contracts';
import { readSse, startNats, type NatsServerHandle } from '@novelrag/testkit';
import { gatewayDefinition } from './service.definition';

// What a browser client (the dashboard, or a third party's page) needs from the gateway: compact goal summaries, an ops
// feed it can filter and start from now, CORS for configured origins, the static dashboard with a strict policy, and
// the services on the bus.
describe('gateway for browser clients (real NATS JetStream)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let gateway: RunningService<object>;
  let url: string;
  let uiDir: string;

  const trace = async (goalId: string, threadId: string, kind: string, seq: number, extra: object) => {
    const event = {
      schemaVersion: SCHEMA_VERSION,
      goalId,
      threadId,
      seq,
      at: new Date().toISOString(),
      kind,
      ...extra,
    };
    await jetstream(nc).publish(Subjects.trace(goalId, kind), JSON.stringify(event));
  };
  const statusChanged = (to: string) => ({ from: 'queued', to });

  beforeAll(async () => {
    uiDir = await mkdtemp(path.join(tmpdir(), 'novelrag-ui-'));
    await mkdir(path.join(uiDir, 'assets'));
    await writeFile(path.join(uiDir, 'index.html'), '<!doctype html><title>ops</title>');
    await writeFile(path.join(uiDir, 'assets', 'app-1a2b.js'), 'console.log(1)');
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    gateway = await startService(gatewayDefinition, {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_AUTH_DISABLED: 'true',
      NOVELRAG_LOG_LEVEL: 'silent',
      NOVELRAG_CORS_ORIGINS: 'http://ops.example.com',
      NOVELRAG_DASHBOARD_DIR: uiDir,
    });
    url = gateway.url!;
  });

  afterAll(async () => {
    await gateway?.close();
    await nc?.close();
    await nats?.stop();
    await rm(uiDir, { recursive: true, force: true });
  });

  const submit = async (body: object) => {
    const res = await fetch(`${url}/v1/goals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return ((await res.json()) as { goalId: string }).goalId;
  };

  it('lists goals as compact summaries, newest first, with the same filters, and one by id', async () => {
    const first = await submit({ request: '创建主角余归', threadId: 'novel-a' });
    const second = await submit({ goal: 'x'.repeat(1_000), threadId: 'novel-b' });
    const page = GoalSummaryPage.parse(await (await fetch(`${url}/v1/goal-summaries?limit=10`)).json());
    expect(page.goals.map((g) => g.goalId)).toEqual([second, first]);
    expect(page.goals[1]).toMatchObject({
      title: '创建主角余归',
      agent: 'novelrag',
      phase: 'queued',
      steps: 0,
    });
    expect(page.goals[0]!.title.length).toBeLessThanOrEqual(200);
    const filtered = GoalSummaryPage.parse(
      await (await fetch(`${url}/v1/goal-summaries?threadId=novel-a`)).json(),
    );
    expect(filtered.goals.map((g) => g.goalId)).toEqual([first]);
    const one = GoalSummary.parse(await (await fetch(`${url}/v1/goal-summaries/${first}`)).json());
    expect(one.threadId).toBe('novel-a');
    expect((await fetch(`${url}/v1/goal-summaries/g-missing`)).status).toBe(404);
    expect((await fetch(`${url}/v1/goal-summaries?limit=0`)).status).toBe(400);
  });

  it('the ops feed filters by kinds and thread, and from=now skips what was stored before', async () => {
    await trace('g-old', 'thread-a', 'goal.status_changed', 0, statusChanged('running'));
    const res = await fetch(
      `${url}/v1/events?from=now&kinds=goal.status_changed,goal.cancelled&threadId=thread-a`,
    );
    expect(res.status).toBe(200);
    // Stored after the response started: only thread-a's status changes and cancellations pass.
    await trace('g-b', 'thread-b', 'goal.status_changed', 0, statusChanged('running'));
    await trace('g-a', 'thread-a', 'limit.hit', 0, { limit: 'max_steps', max: 1, value: 1 });
    await trace('g-a', 'thread-a', 'goal.status_changed', 1, statusChanged('running'));
    await trace('g-a', 'thread-a', 'goal.status_changed', 2, { from: 'running', to: 'waiting_for_input' });
    const events = await readSse(res, 2);
    expect(
      events.map((e) => [e.event, (JSON.parse(e.data!) as { goalId: string; seq: number }).seq]),
    ).toEqual([
      ['goal.status_changed', 1],
      ['goal.status_changed', 2],
    ]);
    expect(events.every((e) => (JSON.parse(e.data!) as { goalId: string }).goalId === 'g-a')).toBe(true);
    for (const bad of ['kinds=goal.nope', 'kinds=', 'threadId=a.b', 'from=later']) {
      const r = await fetch(`${url}/v1/events?${bad}`);
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
    }
  });

  it('answers CORS for the configured origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${url}/v1/goal-summaries`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
    const allowed = await preflight('http://ops.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://ops.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('Authorization');
    const other = await preflight('http://evil.example.com');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the dashboard at /ui with a strict content policy and cacheable hashed assets', async () => {
    const page = await fetch(`${url}/ui/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>ops</title>');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const asset = await fetch(`${url}/ui/assets/app-1a2b.js`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const bare = await fetch(`${url}/ui`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/ui/']);
  });

  it('lists the services on the bus with their endpoint statistics', async () => {
    const reply = ServicesReply.parse(await (await fetch(`${url}/v1/services`)).json());
    const gatewayService = reply.services.find((s) => s.name === 'novelrag-gateway');
    expect(gatewayService?.endpoints.length).toBeGreaterThan(0);
  });
});
