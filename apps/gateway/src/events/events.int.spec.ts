import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startService, type RunningService } from '@novelrag/bus';
import { Subjects } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { gatewayDefinition } from '../service.definition';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(
      path.join(__dirname, '../../../../libs/contracts/fixtures/valid/TraceEvent', `${name}.json`),
      'utf8',
    ),
  ) as Record<string, unknown>;

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads an SSE response until `stopAfter` events (or the `end` event / end of stream). */
async function readSse(res: Response, stopAfter = Infinity): Promise<SseEvent[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: SseEvent = {};
      for (const line of block.split('\n')) {
        const m = /^(id|event|data): (.*)$/.exec(line);
        if (m) event[m[1] as keyof SseEvent] = m[2];
      }
      if (!event.event) continue; // comments, retry
      events.push(event);
      if (event.event === 'end' || events.length >= stopAfter) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

describe('gateway SSE trace (real NATS JetStream)', () => {
  let nats: NatsServerHandle;
  let gateway: RunningService<object>;
  let nc: NatsConnection;
  let url: string;
  let goalId: string;

  const publish = async (kind: string, fixtureName: string, seq: number) => {
    const event = { ...fixture(fixtureName), goalId, threadId: goalId, seq };
    await jetstream(nc).publish(Subjects.trace(goalId, kind), JSON.stringify(event));
  };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    gateway = await startService(gatewayDefinition, {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_AUTH_DISABLED: 'true',
      NOVELRAG_LOG_LEVEL: 'silent',
    });
    url = gateway.url!;
    const res = await fetch(`${url}/v1/goals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request: '创建主角余归' }),
    });
    goalId = ((await res.json()) as { goalId: string }).goalId;
  });

  afterAll(async () => {
    await gateway?.close();
    await nc?.close();
    await nats?.stop();
  });

  it('replays the stored events in order, follows live ones, and ends after the final event', async () => {
    await publish('goal.accepted', 'goal-accepted', 0);
    await publish('assessment', 'assessment', 1);
    const res = await fetch(`${url}/v1/goals/${goalId}/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reading = readSse(res);
    await publish('goal.completed', 'goal-completed', 2); // live, after the replay
    const events = await reading;
    expect(events.map((e) => e.event)).toEqual(['goal.accepted', 'assessment', 'goal.completed', 'end']);
    const seqs = events.slice(0, 3).map((e) => (JSON.parse(e.data!) as { seq: number }).seq);
    expect(seqs).toEqual([0, 1, 2]);
    const ids = events.slice(0, 3).map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('resumes after Last-Event-ID without gaps or repeats', async () => {
    const all = await readSse(await fetch(`${url}/v1/goals/${goalId}/events`));
    const first = all[0]!;
    const resumed = await readSse(
      await fetch(`${url}/v1/goals/${goalId}/events`, { headers: { 'last-event-id': first.id! } }),
    );
    expect(resumed.map((e) => e.id)).toEqual(all.slice(1).map((e) => e.id));
  });

  it('the ops feed carries every goal and rejects a bad Last-Event-ID', async () => {
    const feed = await readSse(await fetch(`${url}/v1/events`), 3);
    expect(feed.every((e) => (JSON.parse(e.data!) as { goalId: string }).goalId === goalId)).toBe(true);
    const bad = await fetch(`${url}/v1/goals/${goalId}/events`, { headers: { 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    expect((await fetch(`${url}/v1/goals/g-unknown/events`)).status).toBe(404);
  });
});
