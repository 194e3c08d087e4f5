import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { GoalSubmission, Streams } from '@novelrag/contracts';
import { busFailure, validFixture } from '../stores/contract/harness';
import { InMemoryGoalStore } from '../testing/memory-goal-store';
import { acceptGoal, newGoalRecord } from './accept-goal';
import { ensureGoalsStream } from './streams';

// The test kit depends on this lib, so these suites use the machine's NATS directly (NATS_URL or the default).
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

describe('acceptGoal: record, publish, roll back (real NATS JetStream, in-memory goal store)', () => {
  let nc: NatsConnection;
  const stream = `GOALS_ACCEPT_${suffix}`;
  const subject = `novelrag.test.${suffix}.accept.goals.submitted`;
  /** A subject no stream listens on: every publish to it fails. */
  const nowhere = { subject: `novelrag.test.${suffix}.nowhere` };
  // Without the fixture's idempotency key: each test says whether its submission has one.
  const { idempotencyKey: _key, ...base } = GoalSubmission.parse(
    validFixture('GoalSubmission', 'user-request-zh'),
  );
  let n = 0;
  const submission = (extra: Partial<GoalSubmission> = {}): GoalSubmission => ({
    ...base,
    goalId: `g-accept-${++n}`,
    ...extra,
  });

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    await ensureGoalsStream(nc, { goals: stream, goalSubject: subject });
  });

  afterAll(async () => {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc?.close();
  });

  it('stores the queued record and publishes the submission, acknowledged by the stream', async () => {
    const store = new InMemoryGoalStore();
    const goal = submission();
    const accepted = await acceptGoal(nc, store, goal, { subject });
    expect(accepted).toEqual({ record: newGoalRecord(goal, goal.submittedAt), created: true });
    expect((await store.get(goal.goalId))?.status).toBe('queued');
    const consumer = await jetstream(nc).consumers.get(stream, Streams.goals.consumer);
    const msg = await consumer.next({ expires: 5_000 });
    expect(GoalSubmission.parse(msg?.json())).toEqual(goal);
    msg?.ack();
  });

  it('answers a repeat of the same submission with the stored goal, and a different one with CONFLICT', async () => {
    const store = new InMemoryGoalStore();
    const goal = submission({ idempotencyKey: 'key-1' });
    const first = await acceptGoal(nc, store, goal, { subject });
    const again = await acceptGoal(
      nc,
      store,
      { ...goal, submittedAt: new Date().toISOString() },
      { subject },
    );
    expect(again).toEqual({ record: { ...first.record, revision: 1 }, created: false });
    const other = acceptGoal(nc, store, { ...goal, request: 'something else' }, { subject });
    expect((await busFailure(other)).code).toBe('CONFLICT');
  });

  it('rolls the record back when the publish fails, unless an idempotency key lets the caller repeat it', async () => {
    const store = new InMemoryGoalStore();
    const plain = submission();
    expect((await busFailure(acceptGoal(nc, store, plain, nowhere))).code).toBe('UNAVAILABLE');
    expect(await store.get(plain.goalId)).toBeNull();

    const keyed = submission({ idempotencyKey: 'key-2' });
    expect((await busFailure(acceptGoal(nc, store, keyed, nowhere))).code).toBe('UNAVAILABLE');
    expect((await store.get(keyed.goalId))?.status).toBe('queued');
    // The repeat with the key publishes the stored goal.
    expect((await acceptGoal(nc, store, keyed, { subject })).created).toBe(false);
  });
});
