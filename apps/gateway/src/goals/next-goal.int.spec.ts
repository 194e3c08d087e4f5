import 'reflect-metadata';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { type RunningService, startService } from '@novelrag/bus';
import { NextGoalRequest, Subjects, okReply } from '@novelrag/contracts';
import { type NatsServerHandle, startNats } from '@novelrag/testkit';
import { gatewayDefinition } from '../service.definition';

const KEY = 'test-key-0123456789abcdef';

/**
 * `POST /v1/goals/next` over real NATS. The orchestrator side of `novelrag.autonomous.next` is played by a plain
 * responder here (the orchestrator's own suite runs the real deciders behind the same subject).
 */
describe('gateway POST /v1/goals/next', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let gateway: RunningService<object>;
  let responder: Subscription | undefined;
  const received: NextGoalRequest[] = [];

  const next = (body: unknown) =>
    fetch(`${gateway.url}/v1/goals/next`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
  // The flush makes the server apply the UNSUB and SUB before the gateway's request: without it, under load the
  // request could reach the old (locally closed) subscription and wait for the gateway's timeout.
  const answerWith = async (data: unknown) => {
    responder?.unsubscribe();
    responder = nc.subscribe(Subjects.autonomousNext, {
      callback: (_err, msg) => {
        received.push(NextGoalRequest.parse(msg.json()));
        msg.respond(JSON.stringify(okReply(data)));
      },
    });
    await nc.flush();
  };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    gateway = await startService(gatewayDefinition, {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_API_KEYS: KEY,
      NOVELRAG_LOG_LEVEL: 'silent',
    });
  });

  afterAll(async () => {
    responder?.unsubscribe();
    await gateway?.close();
    await nc?.close();
    await nats?.stop();
  });

  it('answers 503 NO_RESPONDERS when no orchestrator serves autonomous mode', async () => {
    const res = await next({});
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'NO_RESPONDERS' });
  });

  it('answers 200 {goal: null} when there is nothing to do', async () => {
    await answerWith({ goal: null });
    const res = await next({ beliefs: ['The novel is a xianxia story'] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ goal: null });
    expect(received.at(-1)).toEqual({
      schemaVersion: 1,
      submit: true,
      beliefs: ['The novel is a xianxia story'],
    });
  });

  it('answers 202 with the queued goal, its id and Location', async () => {
    const goal = {
      description: 'Give 余归 a rival',
      decider: { name: 'backlog', context: 'Based on backlog entries: …' },
      goalId: 'g-abc',
      threadId: 'novel-1',
      status: 'queued',
    };
    await answerWith({ goal });
    const res = await next({ threadId: 'novel-1', lang: 'zh', limits: { maxSteps: 5 } });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe('/v1/goals/g-abc');
    expect(await res.json()).toEqual({ goal, goalId: 'g-abc', status: 'queued' });
    expect(received.at(-1)).toMatchObject({ threadId: 'novel-1', lang: 'zh', limits: { maxSteps: 5 } });
  });

  it.each([
    ['a request text', { request: 'not allowed here' }],
    ['bad limits', { limits: { maxSteps: 0 } }],
    ['beliefs that are not strings', { beliefs: [1] }],
  ])('rejects %s with 400', async (_label, body) => {
    const res = await next(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${gateway.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, object>;
    };
    expect(Object.keys(doc.paths)).toContain('/v1/goals/next');
  });
});
