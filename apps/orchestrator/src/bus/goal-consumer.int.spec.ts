import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureGoalsStream, submitGoal } from '@novelrag/bus';
import { type ErrorEnvelope, GoalSubmission, SCHEMA_VERSION, Streams } from '@novelrag/contracts';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { GoalConsumer } from './goal-consumer';
import { silentLog } from '../test/pursuit-fixtures';

jest.setTimeout(30_000);

const log = silentLog;

const submission = () =>
  GoalSubmission.parse({
    schemaVersion: SCHEMA_VERSION,
    goalId: uniqueName('g').replace(/[^A-Za-z0-9_-]/g, '_'),
    goal: 'anything',
    beliefs: [],
    submittedAt: new Date().toISOString(),
    source: 'user',
  });

/** The GOALS consumer over a private nats-server (one for the file), with handlers the tests script. */
let nats: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  nats = await startNats({ privateServer: true });
  nc = await connect({ servers: nats.url });
  await ensureGoalsStream(nc);
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

describe('GoalConsumer (real JetStream)', () => {
  it('terminates a goal whose handling keeps throwing after maxFailedDeliveries in a row, and gives it up', async () => {
    const goal = submission();
    const calls: number[] = [];
    const givenUp: ErrorEnvelope[] = [];
    const consumer = new GoalConsumer(
      nc,
      (_s, delivery) => {
        calls.push(delivery.attempt);
        return Promise.reject(new Error('stored goal does not match its schema'));
      },
      {
        concurrency: 1,
        ackWaitMs: 5_000,
        retryDelayMs: 10,
        pullExpiresMs: 1_000,
        maxFailedDeliveries: 3,
        giveUp: (s, error) => {
          if (s.goalId === goal.goalId) givenUp.push(error);
          return Promise.resolve();
        },
        log,
      },
    );
    await consumer.start();
    try {
      await submitGoal(nc, goal);
      for (let i = 0; i < 100 && givenUp.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300)); // long enough for a (wrong) redelivery
    } finally {
      await consumer.stop(2_000);
    }
    expect(calls).toEqual([1, 2, 3]);
    expect(givenUp).toEqual([
      expect.objectContaining({
        code: 'INTERNAL',
        message: expect.stringContaining('given up after 3 deliveries in a row that failed') as string,
      }),
    ]);
    // Terminated, not left for redelivery.
    const info = await (
      await jetstreamManager(nc)
    ).consumers.info(Streams.goals.name, Streams.goals.consumer);
    expect({ pending: info.num_pending, unacked: info.num_ack_pending }).toEqual({ pending: 0, unacked: 0 });
  });
});

/** How many goals an instance takes in at once (`maxStarting`). */
describe('GoalConsumer start places (real JetStream)', () => {
  const consumerInfo = async () =>
    (await jetstreamManager(nc)).consumers.info(Streams.goals.name, Streams.goals.consumer);

  /** Resolves once `check` holds of the consumer's info (polled; bounded by the test's timeout). */
  const until = async (check: (info: Awaited<ReturnType<typeof consumerInfo>>) => boolean) => {
    for (;;) {
      if (check(await consumerInfo())) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('keeps at most maxStarting pulls pending, however many workers it has', async () => {
    const consumer = new GoalConsumer(nc, () => Promise.resolve('ack'), {
      concurrency: 12,
      maxStarting: 3,
      ackWaitMs: 5_000,
      pullExpiresMs: 1_000, // what stop() waits for at most
      log,
    });
    await consumer.start();
    try {
      await until((info) => info.num_waiting > 0);
      // Every worker is idle: three pull (again as their pulls expire), the other nine wait for a place.
      const waiting: number[] = [];
      for (let i = 0; i < 10; i++) {
        waiting.push((await consumerInfo()).num_waiting);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(Math.max(...waiting)).toBeLessThanOrEqual(3);
    } finally {
      await consumer.stop(0);
    }
  });

  it('takes in the next goal only once a goal started (or ended), leaving the rest in the stream', async () => {
    const first = submission();
    const second = submission();
    const seen: string[] = [];
    let startFirst: (() => void) | undefined;
    let endFirst: (() => void) | undefined;
    const firstEnds = new Promise<void>((r) => (endFirst = r));
    let secondSeen: () => void = () => undefined;
    const secondArrives = new Promise<void>((r) => (secondSeen = r));
    let firstHeld: () => void = () => undefined;
    const firstArrives = new Promise<void>((r) => (firstHeld = r));
    const consumer = new GoalConsumer(
      nc,
      async (s, delivery) => {
        seen.push(s.goalId);
        if (s.goalId === first.goalId) {
          startFirst = () => delivery.started?.();
          firstHeld();
          await firstEnds;
        } else secondSeen();
        return 'ack';
      },
      { concurrency: 2, maxStarting: 1, ackWaitMs: 5_000, pullExpiresMs: 1_000, log },
    );
    await consumer.start();
    try {
      await submitGoal(nc, first);
      await firstArrives;
      await submitGoal(nc, second);
      // The first goal holds the only place: nobody pulls, the second stays in the stream.
      await until((info) => info.num_pending === 1);
      expect((await consumerInfo()).num_waiting).toBe(0);
      expect(seen).toEqual([first.goalId]);
      startFirst?.(); // its pursuit starts: the place is free while it still runs
      await secondArrives;
      expect(seen).toEqual([first.goalId, second.goalId]);
    } finally {
      endFirst?.();
      await consumer.stop(2_000);
    }
  });
});
