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

/** The GOALS consumer over a private nats-server, with a handler the test scripts. */
describe('GoalConsumer (real JetStream)', () => {
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
