import type { NatsConnection } from '@nats-io/transport-node';
import { DEFAULT_AGENT_KIND, type GoalRecord, GoalSubmission, SCHEMA_VERSION } from '@novelrag/contracts';
import { SpanKind, inSpan, traceparentOf } from '@novelrag/telemetry';
import { BusError } from '../errors';
import type { GoalStore } from '../stores/goal-store';
import { publishSubmission } from './streams';

const ZERO_USAGE = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** The queued record of a submission (what is stored before it is published; also used when it is missing). */
export function newGoalRecord(submission: GoalSubmission, now = new Date().toISOString()): GoalRecord {
  return {
    schemaVersion: SCHEMA_VERSION,
    goalId: submission.goalId,
    threadId: submission.threadId ?? submission.goalId,
    status: 'queued',
    source: submission.source,
    agent: submission.agent ?? DEFAULT_AGENT_KIND,
    goal: submission.goal ?? null,
    request: submission.request ?? null,
    lang: submission.lang ?? null,
    beliefs: submission.beliefs,
    limits: submission.limits ?? {},
    steps: [],
    usage: ZERO_USAGE,
    cancelRequested: false,
    ...(submission.idempotencyKey ? { idempotencyKey: submission.idempotencyKey } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

export interface AcceptedGoal {
  /** The stored record: the new one, or the one a repeated submission found. */
  readonly record: GoalRecord;
  /** False when the goal id was already stored by the same submission (a repeat). */
  readonly created: boolean;
}

/**
 * Accepts a goal, the one way a goal enters the system (the gateway's POST and the autonomous next goal): its queued
 * record is created in the goal store (stamped with `submittedAt`), then the submission is published to GOALS and
 * acknowledged by the stream before this returns, so an accepted goal is durable.
 *
 * - The goal id already stored by the same submission (same thread, request or goal, lang, beliefs, limits, source, agent kind):
 *   a repeat, answered with the stored record (`created: false`); while it is still queued it is published again
 *   (the stream drops the duplicate if the first publish landed; the first caller may have died before publishing).
 *   Stored by a different submission: BusError CONFLICT.
 * - Publishing fails: BusError UNAVAILABLE. Without an idempotency key nobody can repeat this goal id, so the record
 *   is removed; with one it stays queued and the caller's retry with the key publishes it.
 */
export function acceptGoal(
  nc: NatsConnection,
  store: GoalStore,
  input: GoalSubmission,
  options: { subject?: string; timeoutMs?: number } = {},
): Promise<AcceptedGoal> {
  const submission = GoalSubmission.parse(input);
  // The goal's trace starts here: the record keeps its traceparent, so every pursuit (a resumption too) continues it.
  return inSpan(
    'submit goal',
    {
      kind: SpanKind.PRODUCER,
      attributes: { 'novelrag.goal.id': submission.goalId, 'novelrag.goal.source': submission.source },
    },
    () => accept(nc, store, submission, options),
  );
}

async function accept(
  nc: NatsConnection,
  store: GoalStore,
  submission: GoalSubmission,
  options: { subject?: string; timeoutMs?: number },
): Promise<AcceptedGoal> {
  const traceparent = traceparentOf();
  const record = {
    ...newGoalRecord(submission, submission.submittedAt),
    ...(traceparent ? { traceparent } : {}),
  };
  try {
    await store.create(record);
  } catch (err) {
    if (!(err instanceof BusError) || err.code !== 'ALREADY_EXISTS') throw err;
    const existing = await store.get(submission.goalId);
    if (!existing) throw err;
    if (!sameSubmission(existing, record)) {
      throw BusError.of('CONFLICT', `goal ${submission.goalId} was submitted with a different request`, {
        goalId: submission.goalId,
      });
    }
    if (existing.status === 'queued') await publishSubmission(nc, submission, options);
    return { record: existing, created: false };
  }
  try {
    await publishSubmission(nc, submission, options);
  } catch (err) {
    if (!submission.idempotencyKey) await store.delete(submission.goalId).catch(() => undefined);
    throw err;
  }
  return { record, created: true };
}

/** Whether two records of one goal id come from the same submission (what an Idempotency-Key repeat must match). */
function sameSubmission(a: GoalRecord, b: GoalRecord): boolean {
  const fields = (r: GoalRecord) =>
    JSON.stringify([
      r.threadId,
      r.request,
      r.goal,
      r.lang,
      r.beliefs,
      sortedKeys(r.limits),
      r.source,
      r.agent ?? DEFAULT_AGENT_KIND,
    ]);
  return fields(a) === fields(b);
}

/** `limits` with its keys in one order (JSON objects are unordered). */
function sortedKeys(limits: GoalRecord['limits']): [string, unknown][] {
  return Object.entries(limits).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
