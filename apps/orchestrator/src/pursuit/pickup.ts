import { newGoalRecord } from '@novelrag/bus';
// The pickup of a goal delivered from the GOALS stream (lease, record, resume), and the settling of goals that ended
// without a pursuit; the pursuit itself runs in pursuit-run.ts.
import type { TraceDraft } from '@novelrag/bus';
import {
  type ErrorEnvelope,
  FINAL_TRACE_KINDS,
  type GoalRecord,
  type GoalSubmission,
  isTerminalStatus,
} from '@novelrag/contracts';
import { finalEvent, historyEntryOf } from './finish';
import { PursuitRun } from './pursuit-run';
import { earlyOutcome } from './records';
import { FINISHED, PursuitStop, type PursuitResult, deliveryOf } from './stop';
import type { Delivery, PursuitDeps } from './types';

/**
 * One delivery of one goal: take the thread, start or resume from the checkpoint, pursue it with its agent kind,
 * checkpoint every decision and step, and record the outcome. `suspend` hands the goal back (instance shutdown).
 */
export async function pursueGoal(
  submission: GoalSubmission,
  delivery: Delivery,
  deps: PursuitDeps,
  suspend: AbortSignal,
): Promise<PursuitResult> {
  const { store, publisher, settings } = deps;
  let record = (await store.get(submission.goalId)) ?? (await store.create(newGoalRecord(submission)));
  if (isTerminalStatus(record.status)) {
    await settleFinished(record, deps);
    return deliveryOf(FINISHED);
  }
  const stop = new PursuitStop();
  const unfollow = [stop.follow(suspend, { kind: 'handed_back' })];
  try {
    const held = await deps.leases.acquire({
      threadId: record.threadId,
      goalId: record.goalId,
      seq: delivery.seq,
      maxWaitMs: settings.threadWaitMs,
      signal: stop.signal,
      onWait: () => {
        delivery.started?.(); // waiting for its thread: the next goal may start meanwhile
        delivery.keepAlive();
      },
    });
    if (!held) return deliveryOf(stop.reason ?? { kind: 'thread_busy' });
    try {
      // What the pursuit reads once it holds the thread, all at once (three round trips in the time of one): the goal
      // record again, where the goal's trace numbering continues (after whoever traced it before), and the thread.
      // A failed read rejects where it is awaited (the catches only keep it from counting as unhandled meanwhile).
      // A first delivery of a goal still queued has nothing traced yet: a pursuit traces only once it has marked the
      // goal running (PursuitRun.pickUp), and a delivery after one that did is a later attempt. Its numbering starts
      // at 0 without reading the TRACE stream, a scan of the whole stream for nats-server 2.9 (startNumbering).
      const fresh = delivery.attempt === 1 && record.status === 'queued';
      const numbering = fresh ? Promise.resolve(0) : publisher.continueNumbering(record.goalId);
      const thread = deps.threads.get(record.threadId);
      numbering.catch(() => undefined);
      thread.catch(() => undefined); // awaited by the pursuit; a goal that ended meanwhile never reads it
      record = (await store.get(submission.goalId, record)) ?? record; // not parsed again when unchanged
      // Cancelled by the gateway while it waited for the thread (or ended by an earlier delivery meanwhile).
      if (isTerminalStatus(record.status)) {
        await numbering.catch(() => undefined); // settled: settleFinished reads the stored trace itself
        await settleFinished(record, deps);
        return deliveryOf(FINISHED);
      }
      await numbering;
      if (fresh && record.status === 'queued') publisher.startNumbering(record.goalId);
      else if (fresh) await publisher.continueNumbering(record.goalId); // picked up by another delivery meanwhile
      unfollow.push(stop.follow(held.lost, { kind: 'lease_lost' }));
      delivery.started?.();
      return await new PursuitRun(submission, record, delivery, deps, stop, thread).execute();
    } finally {
      publisher.forget(record.goalId);
      await held.release().catch(() => undefined);
    }
  } finally {
    for (const off of unfollow) off();
  }
}

/**
 * A terminal goal delivered (again): completes the parts of its end that may be missing, idempotently. The gateway
 * cancels a queued goal without tracing it, and a pursuit that failed after writing the terminal record (thread or trace
 * update) was handed back with the rest undone. Adds the thread history entry of a goal that ran (when missing) and the
 * final trace event (when the goal's trace has none). Throws when that fails, so the delivery is retried (bounded by
 * the consumer).
 */
export async function settleFinished(
  record: GoalRecord,
  deps: Pick<PursuitDeps, 'threads' | 'publisher'>,
): Promise<void> {
  const outcome = record.outcome;
  if (!outcome) return;
  // Only a pickup sets the deadline: a goal cancelled while queued never ran and has no place in the thread's history.
  if (record.deadline !== undefined) {
    const thread = await deps.threads.get(record.threadId);
    if (!thread.history.some((h) => h.goalId === record.goalId)) {
      await deps.threads.finishGoal(record.threadId, historyEntryOf(record, outcome));
    }
  }
  try {
    const stored = await deps.publisher.resume(record.goalId);
    if (FINAL_TRACE_KINDS.some((kind) => stored.kinds.has(kind))) return;
    const event = { ...finalEvent(outcome), goalId: record.goalId, threadId: record.threadId } as TraceDraft;
    await deps.publisher.publish(event);
  } finally {
    deps.publisher.forget(record.goalId);
  }
}

/**
 * Gives up a goal whose deliveries keep failing before a pursuit could start (the consumer terminates its message):
 * marks it failed with `error` unless it already ended, and records its end like any other. Throws when the record
 * cannot be read or written (the caller logs it; the goal then stays as it is).
 */
export async function giveUpGoal(
  goalId: string,
  error: ErrorEnvelope,
  deps: Pick<PursuitDeps, 'store' | 'threads' | 'publisher'>,
): Promise<void> {
  const record = await deps.store.mutate(goalId, (current) =>
    isTerminalStatus(current.status)
      ? null
      : {
          ...current,
          status: 'failed',
          outcome: earlyOutcome(current, 'failed', error.message, error),
          inFlight: undefined,
          pendingInteraction: undefined,
          updatedAt: new Date().toISOString(),
        },
  );
  await settleFinished(record, deps);
}
