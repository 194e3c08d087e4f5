import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureTraceStream } from './streams';
import { TracePublisher, type TraceDraft } from './trace-publisher';

// The test kit depends on this lib, so this suite uses the machine's NATS directly (NATS_URL or the default).
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const draft = (goalId: string): TraceDraft => {
  const {
    schemaVersion: _v,
    seq: _s,
    at: _a,
    ...rest
  } = JSON.parse(
    readFileSync(
      path.join(__dirname, '../../../contracts/fixtures/valid/TraceEvent/goal-accepted.json'),
      'utf8',
    ),
  ) as Record<string, unknown>;
  return { ...rest, goalId, threadId: goalId } as TraceDraft;
};

describe('TracePublisher (real JetStream)', () => {
  let nc: NatsConnection;
  const stream = `TRACE_TEST_${suffix}`;
  const root = `novelrag.test${suffix}.trace`;
  const options = {
    stream,
    subjectOf: (goalId: string, kind: string) => `${root}.${goalId}.${kind}`,
    goalFilter: (goalId: string) => `${root}.${goalId}.>`,
  };

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    await ensureTraceStream(nc, { trace: stream, traceSubject: `${root}.>` });
  });

  afterAll(async () => {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc?.close();
  });

  it('numbers events per goal without gaps and continues after a restart', async () => {
    const first = new TracePublisher(nc, options);
    const seqs = [];
    for (let i = 0; i < 3; i++) seqs.push((await first.publish(draft('ga'))).seq);
    expect(seqs).toEqual([0, 1, 2]);
    expect((await first.publish(draft('gb'))).seq).toBe(0);

    const afterCrash = new TracePublisher(nc, options);
    expect((await afterCrash.publish(draft('ga'))).seq).toBe(3);
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    expect(info.state.messages).toBe(5);
  });

  it('refuses to publish an event outside the contract', async () => {
    const publisher = new TracePublisher(nc, options);
    await expect(
      publisher.publish({ ...draft('gc'), kind: 'goal.accepted', source: 'martian' } as never),
    ).rejects.toThrow();
    expect((await publisher.publish(draft('gc'))).seq).toBe(0);
  });
});
