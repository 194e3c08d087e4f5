// A goal's runtime and question subscriptions outlive its last call (SUBSCRIPTION_LINGER_MS) over real NATS: while
// they linger, a question must reach whoever runs the goal now (the pursuit that resumed it after a hand-back), not be
// answered CANCELLED by the pursuit that ended.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { RecordingExecutionContext, deferred } from '@novelrag/agenturn/testing';
import { Subjects } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { randomUUID } from 'node:crypto';
import { askedConfirm, askingCall as fixture } from '../test/pursuit-fixtures';
import { CallRouter } from './call-messages';

// A goal of its own (the shared NATS server may serve other tests at the same time).
const goalId = `goal-linger-${randomUUID()}`;
const askingCall = {
  ...fixture,
  goalId,
  runtimeSubject: Subjects.goalRuntime(goalId),
  interactSubject: Subjects.goalInteract(goalId),
};
const question = { ...askedConfirm, goalId };

describe('CallRouter: lingering subscriptions', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('an ended pursuit does not answer the question of the pursuit that resumed the goal', async () => {
    const dropped = () => undefined;
    // The pursuit that handed the goal back: its call is closed, its subscriptions linger.
    const ended = new CallRouter(nc, askingCall.goalId, dropped);
    ended.open(askingCall, new RecordingExecutionContext(), () => undefined).close();
    // The pursuit that resumed it re-sent the same invocation; the human answers when the test says so.
    const asked = deferred<void>();
    const answer = deferred<boolean>();
    const resumed = new CallRouter(nc, askingCall.goalId, dropped);
    const ctx = new RecordingExecutionContext({
      confirmAnswers: () => {
        asked.resolve();
        return answer.promise;
      },
    });
    const call = resumed.open(askingCall, ctx, () => undefined);
    try {
      const reply = nc.request(askingCall.interactSubject, JSON.stringify(question), {
        timeout: 60_000,
      });
      await asked.promise; // the resumed pursuit holds the question (the ended one has seen it too)
      await nc.flush();
      answer.resolve(true);
      expect((await reply).json()).toEqual({ ok: true, data: { approved: true } });
    } finally {
      call.close();
      resumed.unsubscribe();
      ended.unsubscribe();
    }
  });
});
