import type { Msg, NatsConnection, SubscriptionOptions } from '@nats-io/transport-node';
import { Subjects } from '@novelrag/contracts';
import { GoalCancellations } from './goal-cancellations';

/** A connection that records the one subscription and lets the test deliver messages to it. */
function fakeConnection() {
  const subscribed: string[] = [];
  let deliver: (subject: string) => void = () => undefined;
  let unsubscribed = 0;
  const nc = {
    subscribe(subject: string, opts: SubscriptionOptions) {
      subscribed.push(subject);
      deliver = (s) => {
        void opts.callback?.(null, { subject: s } as Msg);
      };
      return { unsubscribe: () => (unsubscribed += 1) };
    },
  } as unknown as NatsConnection;
  return {
    nc,
    subscribed,
    cancel: (goalId: string) => deliver(Subjects.goalCancel(goalId)),
    unsubscribed: () => unsubscribed,
  };
}

describe('GoalCancellations', () => {
  it('subscribes once to every goal and calls the listeners of the cancelled goal only, until they stop', () => {
    const fake = fakeConnection();
    const cancellations = new GoalCancellations();
    cancellations.start(fake.nc);
    cancellations.start(fake.nc);
    expect(fake.subscribed).toEqual([Subjects.goalCancelAll]);
    const heard: string[] = [];
    const stopA1 = cancellations.on('goal-a', () => heard.push('a1'));
    cancellations.on('goal-a', () => heard.push('a2'));
    cancellations.on('goal-b', () => heard.push('b'));
    fake.cancel('goal-a');
    expect(heard).toEqual(['a1', 'a2']);
    stopA1();
    fake.cancel('goal-a');
    expect(heard).toEqual(['a1', 'a2', 'a2']);
    fake.cancel('goal-c');
    expect(heard).toHaveLength(3);
    cancellations.stop();
    expect(fake.unsubscribed()).toBe(1);
  });
});
