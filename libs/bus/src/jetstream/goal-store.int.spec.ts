import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { GoalSubmission, KvKeys, Streams } from '@novelrag/contracts';
import { describeGoalStoreContract } from '../stores/contract/goal-store-contract';
import { KvGoalStore } from './goal-store';
import { ensureGoalsStream, submitGoal } from './streams';

// The test kit depends on this lib, so these suites use the machine's NATS directly (NATS_URL or the default).
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const fixture = <T>(kind: string, name: string): T =>
  JSON.parse(
    readFileSync(path.join(__dirname, '../../../contracts/fixtures/valid', kind, `${name}.json`), 'utf8'),
  ) as T;

let buckets = 0;
describeGoalStoreContract('JetStream KV (real NATS)', {
  create: async () => {
    const nc = await connect({ servers: NATS_URL });
    const bucket = `goals_test_${suffix}_${++buckets}`;
    const store = await KvGoalStore.open(nc, bucket);
    const kv = await new Kvm(nc).open(bucket);
    return {
      store,
      putRaw: async (goalId, raw) => void (await kv.put(KvKeys.goal(goalId), raw)),
      cleanup: async () => {
        await kv.destroy().catch(() => undefined);
        await nc.close();
      },
    };
  },
});

describe('GOALS stream (real NATS JetStream)', () => {
  let nc: NatsConnection;
  const stream = `GOALS_TEST_${suffix}`;
  const subject = `novelrag.test.${suffix}.goals.submitted`;

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
  });

  afterAll(async () => {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc?.close();
  });

  it('submits goals durably and idempotently by goal id', async () => {
    await ensureGoalsStream(nc, { goals: stream, goalSubject: subject });
    await ensureGoalsStream(nc, { goals: stream, goalSubject: subject }); // idempotent at boot
    const submission = GoalSubmission.parse(fixture('GoalSubmission', 'user-request-zh'));
    const a = await submitGoal(nc, submission, { subject });
    const b = await submitGoal(nc, submission, { subject });
    expect(a.duplicate).toBe(false);
    expect(b).toEqual({ seq: a.seq, duplicate: true });

    const consumer = await jetstream(nc).consumers.get(stream, Streams.goals.consumer);
    const msg = await consumer.next({ expires: 2_000 });
    expect(GoalSubmission.parse(msg?.json())).toEqual(submission);
    msg?.ack();
  });

  it('createOnly (the gateway) creates a missing stream without a consumer and never changes an existing one', async () => {
    const own = { goals: `${stream}_CO`, goalSubject: `${subject}.co` };
    const jsm = await jetstreamManager(nc);
    try {
      await ensureGoalsStream(nc, own, {}, { createOnly: true });
      expect((await jsm.streams.info(own.goals)).config.subjects).toEqual([own.goalSubject]);
      await expect(jsm.consumers.info(own.goals, Streams.goals.consumer)).rejects.toThrow(/not found/i);
      await jsm.streams.update(own.goals, { max_msgs: 7 });
      await ensureGoalsStream(nc, own, {}, { createOnly: true });
      expect((await jsm.streams.info(own.goals)).config.max_msgs).toBe(7);
    } finally {
      await jsm.streams.delete(own.goals).catch(() => undefined);
    }
  });

  it('creates the orchestrator consumer once and never resets its settings on a later boot', async () => {
    const own = { goals: `${stream}_ACK`, goalSubject: `${subject}.ack` };
    const jsm = await jetstreamManager(nc);
    try {
      await ensureGoalsStream(nc, own, { ackWaitMs: 5_000 });
      const ns = (ms: number) => ms * 1_000_000;
      expect((await jsm.consumers.info(own.goals, Streams.goals.consumer)).config.ack_wait).toBe(ns(5_000));
      // A gateway boots later with no opinion on the consumer: the orchestrator's ack wait stands.
      await ensureGoalsStream(nc, own);
      expect((await jsm.consumers.info(own.goals, Streams.goals.consumer)).config.ack_wait).toBe(ns(5_000));
    } finally {
      await jsm.streams.delete(own.goals).catch(() => undefined);
    }
  });
});
