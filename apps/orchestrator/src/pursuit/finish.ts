import { type PursuitOutcome, formatSteps } from '@novelrag/agenturn';
import {
  DEFAULT_AGENT_KIND,
  type GoalOutcome,
  type GoalRecord,
  type LimitHit,
  type ThreadHistoryEntry,
  type WorkspaceState,
  canTransition,
} from '@novelrag/contracts';
import type { ThreadStore } from '@novelrag/bus';
import { Metrics } from '@novelrag/telemetry';
import type { GoalCheckpoint } from './checkpoint';
import { goalOutcomeOf } from './records';
import type { GoalTrace, GoalTraceDraft } from './trace';

/** The bounds a finished pursuit is measured against (for `limit.hit`). */
export interface AppliedLimits {
  readonly maxSteps: number;
  readonly wallClockMs: number;
  readonly tokenBudget: number;
  readonly startedAt: number;
}

/**
 * The goal's outcome from the executor's, with our own token budget: when it (and not the user) stopped the pursuit,
 * the executor saw a cancellation, but the goal was abandoned for `token_budget` with the best partial answer.
 */
export function finalOutcome(
  outcome: PursuitOutcome,
  trace: GoalTrace,
  tokenBudgetHit: boolean,
  limits: AppliedLimits,
): GoalOutcome {
  if (!tokenBudgetHit) return goalOutcomeOf(outcome, trace.usage);
  const used = trace.usage.totalTokens;
  const reason = `Token budget exhausted: ${used} tokens used (limit ${limits.tokenBudget})`;
  const steps = outcome.executedSteps;
  const response =
    steps.length === 0
      ? `Stopped before the goal was resolved (${reason}). No steps were executed.`
      : [
          `Stopped before the goal was resolved (${reason}). ${steps.length} step(s) executed:`,
          ...formatSteps(steps),
        ].join('\n');
  return {
    ...goalOutcomeOf(outcome, trace.usage, { status: 'abandoned', limitHit: 'token_budget', reason }),
    response,
  };
}

export function limitHitEvent(limit: LimitHit, outcome: GoalOutcome, limits: AppliedLimits, now: number) {
  switch (limit) {
    case 'max_steps':
      return { kind: 'limit.hit' as const, limit, max: limits.maxSteps, value: outcome.steps };
    case 'wall_clock':
      return { kind: 'limit.hit' as const, limit, max: limits.wallClockMs, value: now - limits.startedAt };
    case 'token_budget':
      return {
        kind: 'limit.hit' as const,
        limit,
        max: limits.tokenBudget,
        value: outcome.tokens.totalTokens,
      };
    case 'max_iterations':
      return { kind: 'limit.hit' as const, limit, max: 0, value: 0 };
  }
}

export interface FinishOptions {
  readonly checkpoint: GoalCheckpoint;
  readonly trace: GoalTrace;
  readonly threads: ThreadStore;
  readonly workspace?: WorkspaceState;
  readonly limits?: AppliedLimits;
  readonly requestedBy?: string;
}

/**
 * Records a terminal outcome: the goal record (CAS), the thread's history and workspace, then the final trace event
 * (`limit.hit` first when a budget ended it). After this the JetStream message may be acked. When a step after the
 * terminal record fails, the message is handed back and its redelivery completes the rest (`settleFinished`).
 */
export async function finishGoal(outcome: GoalOutcome, options: FinishOptions): Promise<void> {
  const { checkpoint, trace } = options;
  if (outcome.limitHit && options.limits) {
    trace.emit(limitHitEvent(outcome.limitHit, outcome, options.limits, Date.now()));
  }
  // A goal stopped while it waited for a human goes back to running first (the only way out to completed/abandoned).
  if (
    !canTransition(checkpoint.record.status, outcome.status) &&
    checkpoint.record.status !== outcome.status
  ) {
    await checkpoint.write(
      () => ({ status: 'running', pendingInteraction: undefined }),
      'interaction closed',
    );
  }
  const record = await checkpoint.write(
    (current) => ({
      ...(current.status === outcome.status ? {} : { status: outcome.status }),
      outcome,
      usage: outcome.tokens,
      inFlight: undefined,
      pendingInteraction: undefined,
    }),
    outcome.reason,
  );
  await options.threads.finishGoal(record.threadId, historyEntryOf(record, outcome), options.workspace);
  trace.emit(finalEvent(outcome, options.requestedBy));
  const labels = { status: outcome.status, agent: record.agent ?? DEFAULT_AGENT_KIND };
  Metrics.goalsFinished.inc(labels);
  Metrics.goalDuration.observe(labels, Math.max(0, Date.now() - Date.parse(record.createdAt)) / 1_000);
  await trace.flush();
}

/** The thread history entry of a finished goal. */
export function historyEntryOf(record: GoalRecord, outcome: GoalOutcome): ThreadHistoryEntry {
  return {
    goalId: record.goalId,
    request: record.request,
    goal: record.goal,
    status: outcome.status,
    response: outcome.response,
    finishedAt: outcome.finishedAt,
  };
}

/** The trace event that ends a goal's trace (what SSE followers wait for), named after the goal's terminal status. */
export function finalEvent(outcome: GoalOutcome, requestedBy?: string): GoalTraceDraft {
  switch (outcome.status) {
    case 'completed':
      return { kind: 'goal.completed', outcome };
    case 'cancelled':
      return { kind: 'goal.cancelled', outcome, ...(requestedBy ? { requestedBy } : {}) };
    case 'failed':
      return { kind: 'goal.failed', outcome, ...(outcome.error ? { error: outcome.error } : {}) };
    case 'abandoned':
      return { kind: 'goal.abandoned', outcome };
  }
}
