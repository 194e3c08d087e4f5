import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { GoalRecord, GoalSubmission, Streams } from '@novelrag/contracts';
import { BusError } from '../errors';
import { GoalStore } from './goal-store';
import { ensureGoalsStream, submitGoal } from './streams';

// The test kit depends on this lib, so these suites use the machine's NATS directly (NATS_URL or the default).
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const fixture = <T>(kind: string, name: string): T =>
  JSON.parse(
    readFileSync(path.join(__dirname, '../../../contracts/fixtures/valid', kind, `${name}.json`), 'utf8'),
  ) as T;

async function failure(p: Promise<unknown>): Promise<BusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BusError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('GoalStore and GOALS stream (real NATS JetStream)', () => {
  let nc: NatsConnection;
  let store: GoalStore;
  const bucket = `goals_test_${suffix}`;
  const stream = `GOALS_TEST_${suffix}`;
  const subject = `novelrag.test.${suffix}.goals.submitted`;
  const base = GoalRecord.parse(fixture('GoalRecord', 'queued-untranslated'));

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    store = await GoalStore.open(nc, bucket);
  });

  afterAll(async () => {
    await new Kvm(nc)
      .open(bucket)
      .then((kv) => kv.destroy())
      .catch(() => undefined);
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc?.close();
  });

  it('creates, reads and updates a goal with compare-and-swap', async () => {
    const created = await store.create({ ...base, goalId: 'g1' });
    expect(created.revision).toBeGreaterThan(0);
    expect((await failure(store.create({ ...base, goalId: 'g1' }))).code).toBe('ALREADY_EXISTS');

    const read = await store.get('g1');
    expect(read).toEqual(created);
    const running = await store.update({ ...read!, status: 'running' });
    expect(running.revision).toBeGreaterThan(created.revision!);
    // A writer holding the old revision loses.
    expect((await failure(store.update({ ...read!, status: 'cancelled' }))).code).toBe('CONFLICT');
    expect((await store.get('g1'))?.status).toBe('running');
    expect(await store.get('nope')).toBeNull();
  });

  it('mutate retries on conflicting writers so no update is lost', async () => {
    await store.create({ ...base, goalId: 'g2', beliefs: [] });
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.mutate('g2', (g) => ({ ...g, beliefs: [...g.beliefs, `b${i}`] }), 20),
      ),
    );
    expect((await store.get('g2'))?.beliefs.slice().sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    expect((await failure(store.mutate('missing', (g) => g))).code).toBe('NOT_FOUND');
  });

  it('lists newest first with filters and cursor pagination', async () => {
    for (let i = 0; i < 5; i++) {
      await store.create({
        ...base,
        goalId: `p${i}`,
        threadId: i % 2 ? 'odd' : 'even',
        createdAt: `2026-01-0${i + 1}T00:00:00.000Z`,
      });
    }
    const first = await store.list({ threadId: 'even', limit: 2 });
    expect(first.goals.map((g) => g.goalId)).toEqual(['p4', 'p2']);
    const second = await store.list({ threadId: 'even', limit: 2, cursor: first.nextCursor! });
    expect(second.goals.map((g) => g.goalId)).toEqual(['p0']);
    expect(second.nextCursor).toBeNull();
    expect((await failure(store.list({ cursor: 'garbage' }))).code).toBe('VALIDATION_FAILED');
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
