import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createConnection } from 'node:net';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startService, type RunningService } from '@novelrag/bus';
import { Streams, Subjects } from '@novelrag/contracts';
import { readSse, startNats, type NatsServerHandle } from '@novelrag/testkit';
import { gatewayDefinition } from '../service.definition';

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(
      path.join(__dirname, '../../../../libs/contracts/fixtures/valid/TraceEvent', `${name}.json`),
      'utf8',
    ),
  ) as Record<string, unknown>;

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

  it('relays the answer pieces of a goal as answer.delta events while connected (not stored, no id)', async () => {
    const res = await fetch(`${url}/v1/goals/${goalId}/events?follow=true`);
    const reading = readSse(res, 4); // the three stored events, then the first piece that arrives
    const delta = (index: number) => ({
      schemaVersion: 1,
      goalId,
      attempt: 1,
      index,
      text: `piece ${index} `,
      at: new Date().toISOString(),
    });
    // The relay subscribes once the stream has started: offer pieces until one arrives (a bounded, adaptive wait).
    let done = false;
    void reading.finally(() => (done = true));
    nc.publish(Subjects.goalAnswer(goalId), '{"not":"a delta"}'); // dropped
    for (let i = 0; !done && i < 400; i++) {
      nc.publish(Subjects.goalAnswer(goalId), JSON.stringify(delta(i)));
      await new Promise((r) => setTimeout(r, 25));
    }
    const events = await reading;
    const pieces = events.filter((e) => e.event === 'answer.delta');
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.id).toBeUndefined();
    expect(JSON.parse(pieces[0]!.data!)).toMatchObject({
      goalId,
      text: expect.stringMatching(/^piece \d+ $/),
    });
    // Not stored: a later replay of the goal has only its trace events.
    const replay = await readSse(await fetch(`${url}/v1/goals/${goalId}/events`));
    expect(replay.map((e) => e.event)).toEqual(['goal.accepted', 'assessment', 'goal.completed', 'end']);
  });

  it('a client that does not read holds the replay back (backpressure), not the gateway memory', async () => {
    // 4000 events of ~8 KB (32 MB), far more than the socket buffers between the gateway and a client that reads nothing.
    const flood = 'g-flood';
    const total = 4_000;
    const big: Record<string, unknown> = { ...fixture('runtime'), goalId: flood, threadId: flood };
    const js = jetstream(nc);
    for (let seq = 0; seq < total; seq++) {
      const event = {
        ...big,
        seq,
        event: { ...(big['event'] as object), goalId: flood, message: 'x'.repeat(8_000) },
      };
      await js.publish(Subjects.trace(flood, 'runtime'), JSON.stringify(event));
    }
    const { port } = new URL(url);
    const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
    let answer = '';
    socket.once('data', (chunk: Buffer) => (answer = chunk.toString('utf8', 0, 200)));
    socket.resume(); // the response head only: then it reads nothing more
    socket.once('data', () => socket.pause());
    socket.write('GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n'); // the ops feed replays the whole stream
    try {
      const jsm = await jetstreamManager(nc);
      const delivered = async () => {
        let most = 0;
        for await (const info of jsm.consumers.list(Streams.trace.name))
          most = Math.max(most, info.delivered.stream_seq);
        return most;
      };
      // Let it deliver what it can, then check it stopped long before the end.
      let last = -1;
      for (let i = 0; i < 40; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const now = await delivered();
        if (now === last && now > 0) break;
        last = now;
      }
      expect(answer).toMatch(/^HTTP\/1.1 200/);
      const stored = (await jsm.streams.info(Streams.trace.name)).state.last_seq;
      expect(stored - (await delivered())).toBeGreaterThan(total / 2);
    } finally {
      socket.destroy();
    }
  }, 60_000);

  it('skips a stored message that is not a trace event, serves the rest, and counts what it skipped', async () => {
    const res = await fetch(`${url}/v1/goals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request: 'another goal' }),
    });
    const other = ((await res.json()) as { goalId: string }).goalId;
    const skipped = async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return Number(/^novelrag_trace_events_skipped_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await skipped();
    const js = jetstream(nc);
    const event = (name: string, seq: number) => ({ ...fixture(name), goalId: other, threadId: other, seq });
    await js.publish(Subjects.trace(other, 'goal.accepted'), JSON.stringify(event('goal-accepted', 0)));
    // Breaks the contract (a negative seq), then not JSON at all.
    await js.publish(Subjects.trace(other, 'assessment'), JSON.stringify(event('assessment', -1)));
    await js.publish(Subjects.trace(other, 'assessment'), 'not json');
    await js.publish(Subjects.trace(other, 'goal.completed'), JSON.stringify(event('goal-completed', 1)));
    const events = await readSse(await fetch(`${url}/v1/goals/${other}/events`));
    expect(events.map((e) => e.event)).toEqual(['goal.accepted', 'goal.completed', 'end']);
    expect((await skipped()) - before).toBe(2);
  });
});
