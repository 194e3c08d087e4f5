import { type PursuitOutcome, formatSteps } from '@novelrag/agenturn';
import { type GoalOutcome, type LimitHit, type WorkspaceState, canTransition } from '@novelrag/contracts';
import type { ThreadStore } from '../threads/thread-store';
import type { GoalCheckpoint } from './goal-checkpoint';
import { goalOutcomeOf } from './goal-records';
import type { GoalTrace } from './goal-trace';

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
 * (`limit.hit` first when a budget ended it). After this the JetStream message may be acked.
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
  await options.threads.finishGoal(
    record.threadId,
    {
      goalId: record.goalId,
      request: record.request,
      goal: record.goal,
      status: outcome.status,
      response: outcome.response,
      finishedAt: outcome.finishedAt,
    },
    options.workspace ?? (await options.threads.get(record.threadId)).workspace,
  );
  switch (outcome.status) {
    case 'completed':
      trace.emit({ kind: 'goal.completed', outcome });
      break;
    case 'cancelled':
      trace.emit({
        kind: 'goal.cancelled',
        outcome,
        ...(options.requestedBy ? { requestedBy: options.requestedBy } : {}),
      });
      break;
    case 'failed':
    case 'abandoned':
      trace.emit({ kind: 'goal.failed', outcome, ...(outcome.error ? { error: outcome.error } : {}) });
      break;
  }
  await trace.flush();
}
