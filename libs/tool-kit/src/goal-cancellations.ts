import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { Subjects } from '@novelrag/contracts';

/** Removes a listener added by `GoalCancellations.on`. */
export type StopListening = () => void;

const [CANCEL_PREFIX = '', CANCEL_SUFFIX = ''] = Subjects.goalCancelAll.split('*');

/**
 * One subscription to every goal's cancel subject for a whole host, instead of one subscribe/unsubscribe pair per
 * invocation (two protocol messages and two socket writes per call on the dispatch path). Listeners are keyed by goal
 * id; a cancellation calls each listener of its goal once. Being subscribed from `start()` on, it also hears a cancel
 * published while an invocation's own subscription would still have been on its way to the server.
 */
export class GoalCancellations {
  private readonly listeners = new Map<string, Set<() => void>>();
  private subscription: Subscription | undefined;

  /** Subscribes (idempotent). */
  start(nc: NatsConnection): void {
    this.subscription ??= nc.subscribe(Subjects.goalCancelAll, {
      callback: (err, msg) => {
        if (err) return;
        const goalId = msg.subject.slice(CANCEL_PREFIX.length, msg.subject.length - CANCEL_SUFFIX.length);
        for (const listener of [...(this.listeners.get(goalId) ?? [])]) listener();
      },
    });
  }

  /** Calls `listener` when `goalId` is cancelled, until the returned function is called. */
  on(goalId: string, listener: () => void): StopListening {
    let set = this.listeners.get(goalId);
    if (!set) this.listeners.set(goalId, (set = new Set()));
    const own = () => listener(); // a distinct entry even when one function is registered twice
    set.add(own);
    return () => {
      set.delete(own);
      if (set.size === 0 && this.listeners.get(goalId) === set) this.listeners.delete(goalId);
    };
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
