import { toErrorInfo, type ErrorInfo } from '../errors/error-info';
import { BudgetExhaustedError } from '../errors/errors';
import type { Goal } from '../goal/goal';
import type { InteractionHistory } from '../goal/interaction-history';
import type { ActionDeterminer } from '../pursuit/action-determiner';
import {
  pursuitStatusOf,
  type PursuitLimit,
  type PursuitOutcome,
  type PursuitProgress,
  type PursuitStatus,
} from '../pursuit/pursuit';
import type { Decision, OperationOutcome, OperationPlan, Resolution } from '../pursuit/step';
import { formatSteps } from '../pursuit/summarize';
import type { ToolCatalog } from '../tool/tool-catalog';
import type { ToolExecutor } from '../tool/tool-executor';
import { systemClock, type Clock } from './clock';
import type { ExecutionContext } from './execution-context';

/** Budgets of one pursuit. The original had none; a looping model could run forever. */
export interface PursuitLimits {
  /** Executed steps (resumed ones included) after which the pursuit is abandoned. */
  readonly maxSteps: number;
  /** Elapsed time after which the pursuit is abandoned; `Infinity` disables it. */
  readonly wallClockMs: number;
}

export const DEFAULT_PURSUIT_LIMITS: PursuitLimits = { maxSteps: 30, wallClockMs: 10 * 60 * 1000 };

export interface GoalExecutorHooks {
  /**
   * After each executed step, with the progress including it (the checkpoint hook). Awaited before the next decision;
   * a rejection ends the pursuit as `failed`, since continuing without a checkpoint would lose work on a crash.
   */
  onStep?(progress: PursuitProgress, outcome: OperationOutcome): Promise<void>;
  /**
   * After a group of calls decided together (`OperationPlan.group`) has all ended, with the progress including them
   * all: one checkpoint for the whole group, so a crash leaves none or all of them recorded. Without it `onStep` is
   * called for each, in order.
   */
  onSteps?(progress: PursuitProgress, outcomes: readonly OperationOutcome[]): Promise<void>;
  /** Each decision as soon as it is made, before it is acted on. Awaited; a rejection ends the pursuit as `failed`. */
  onDecision?(decision: Decision, progress: PursuitProgress): void | Promise<void>;
}

export interface GoalExecutorOptions {
  readonly beliefs: readonly string[];
  readonly tools: ToolCatalog;
  readonly determiner: ActionDeterminer;
  readonly executor: ToolExecutor;
  readonly ctx: ExecutionContext;
  readonly limits?: Partial<PursuitLimits>;
  readonly clock?: Clock;
  readonly hooks?: GoalExecutorHooks;
}

export interface HandleGoalOptions {
  /** Cancels the pursuit at the next safe point; passed down to the determiner and the running tool. */
  readonly signal?: AbortSignal;
  readonly history?: InteractionHistory;
  /** Continue a checkpointed pursuit: its steps count as already executed (numbering and step budget go on). */
  readonly resume?: PursuitProgress;
  /** When the pursuit originally started (epoch ms), so a resumed pursuit keeps its wall-clock budget. */
  readonly startedAt?: number;
}

/** Longest delay `setTimeout` accepts; longer budgets are still enforced at the safe points through the clock. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Pursues a goal: determine → execute → append the outcome → checkpoint, until the determiner resolves, a budget runs
 * out, the signal aborts or something fails. `handleGoal` never rejects: every ending is a `PursuitOutcome`.
 *
 * - Resolution → its status mapped by `pursuitStatusOf`.
 * - Tool failures are fed back (the step is recorded as failed and the loop goes on).
 * - Max steps / wall clock → `abandoned` with `limitHit`; the wall-clock budget also aborts an in-flight call.
 * - Abort of `signal` → `cancelled`, checked before each decision and each execution; a running tool gets the signal.
 * - A determiner or hook rejection → `failed` with `error` (code + message).
 */
export class GoalExecutor {
  readonly beliefs: readonly string[];
  readonly tools: ToolCatalog;
  readonly limits: PursuitLimits;
  readonly ctx: ExecutionContext;
  private readonly determiner: ActionDeterminer;
  private readonly executor: ToolExecutor;
  private readonly clock: Clock;
  private readonly hooks: GoalExecutorHooks;

  constructor(options: GoalExecutorOptions) {
    this.beliefs = options.beliefs;
    this.tools = options.tools;
    this.determiner = options.determiner;
    this.executor = options.executor;
    this.ctx = options.ctx;
    this.limits = { ...DEFAULT_PURSUIT_LIMITS, ...options.limits };
    this.clock = options.clock ?? systemClock;
    this.hooks = options.hooks ?? {};
  }

  async handleGoal(goal: Goal, options: HandleGoalOptions = {}): Promise<PursuitOutcome> {
    const run = new PursuitRun(goal, options, this.clock.now());
    const remaining = this.limits.wallClockMs - (this.clock.now() - run.startedAt);
    const timer = Number.isFinite(remaining)
      ? setTimeout(
          () => run.budget.abort(new BudgetExhaustedError('wall_clock', 'wall-clock budget exhausted')),
          Math.min(Math.max(0, remaining), MAX_TIMER_MS),
        )
      : undefined;
    try {
      return await this.pursue(run);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  private async pursue(run: PursuitRun): Promise<PursuitOutcome> {
    const { ctx } = this;
    const resumedSteps = run.progress.executedSteps.length;
    ctx.info(
      resumedSteps === 0
        ? `Starting goal pursuit: ${run.goal.description}`
        : `Resuming goal pursuit after step ${resumedSteps}: ${run.goal.description}`,
    );
    for (;;) {
      const stop = this.stopIfNeeded(run);
      if (stop !== null) return stop;

      let decision: Decision;
      try {
        decision = await this.determiner.determineAction({
          beliefs: this.beliefs,
          progress: run.progress,
          tools: this.tools,
          ctx,
          ...(run.options.history === undefined ? {} : { history: run.options.history }),
          signal: run.signal,
        });
        assertDecision(decision);
        decision = this.withinBudget(decision, run);
        await this.hooks.onDecision?.(decision, run.progress);
      } catch (e) {
        return this.afterError(run, e);
      }

      if (decision.kind === 'resolution') return this.resolved(run, decision);

      const stopBeforeExecute = this.stopIfNeeded(run);
      if (stopBeforeExecute !== null) return stopBeforeExecute;

      const outcomes = await this.executeStep(run, decision);
      try {
        await this.record(run.progress, outcomes);
      } catch (e) {
        return this.failed(run, toErrorInfo(e), 'checkpoint hook failed');
      }
      // A cancelled step ends the pursuit only when one of our signals caused it; otherwise it is a failed step.
      if (outcomes.some((o) => o.status === 'cancelled')) {
        const stop = this.stopIfNeeded(run);
        if (stop !== null) return stop;
      }
    }
  }

  /**
   * Runs the decided call, with the calls decided together with it at the same time, and appends their outcomes in plan order. Each `execute` is called in plan order before any is awaited, so
   * an executor that numbers steps as it is called numbers them as the checkpoint does.
   */
  private async executeStep(run: PursuitRun, decision: OperationPlan): Promise<OperationOutcome[]> {
    const { ctx } = this;
    const { group = [], ...head } = decision;
    const plans: OperationPlan[] = [head, ...group];
    const first = run.progress.executedSteps.length + 1;
    plans.forEach((plan, i) => ctx.info(`Step ${first + i}: Executing: ${plan.reason}`));
    const outcomes = await Promise.all(plans.map((plan) => this.execute(run, plan)));
    run.progress = { goal: run.goal, executedSteps: [...run.progress.executedSteps, ...outcomes] };
    plans.forEach((plan, i) => {
      const outcome = outcomes[i] as OperationOutcome;
      if (outcome.status === 'success') ctx.info(`✓ Completed: ${plan.reason}`);
      else ctx.error(`✗ Failed: ${plan.reason} - ${outcome.errorMessage ?? outcome.status}`);
    });
    return outcomes;
  }

  /** A group of calls cut to what the step budget leaves (the first call always fits: the budget was checked). */
  private withinBudget(decision: Decision, run: PursuitRun): Decision {
    if (decision.kind !== 'operation' || decision.group === undefined) return decision;
    const room = Math.max(0, this.limits.maxSteps - run.progress.executedSteps.length - 1);
    const group = decision.group.slice(0, room);
    if (group.length === 0) {
      const { group: _dropped, ...head } = decision;
      return head;
    }
    return { ...decision, group };
  }

  /** Checkpoints the step's outcomes: one group write when the hooks take one, else step by step. */
  private async record(progress: PursuitProgress, outcomes: readonly OperationOutcome[]): Promise<void> {
    if (outcomes.length > 1 && this.hooks.onSteps) return this.hooks.onSteps(progress, outcomes);
    const before = progress.executedSteps.length - outcomes.length;
    for (const [i, outcome] of outcomes.entries()) {
      const executedSteps = progress.executedSteps.slice(0, before + i + 1);
      await this.hooks.onStep?.({ goal: progress.goal, executedSteps }, outcome);
    }
  }

  /** The executor contract says it never rejects; a broken (e.g. remote) implementation still only fails the step. */
  private async execute(run: PursuitRun, plan: OperationPlan): Promise<OperationOutcome> {
    const startedAt = this.isoNow();
    try {
      return await this.executor.execute(plan, this.ctx, run.signal);
    } catch (e) {
      const info = toErrorInfo(e);
      return {
        operation: plan,
        status: 'failed',
        result: null,
        errorMessage: info.message,
        errorCode: info.code,
        startedAt,
        completedAt: this.isoNow(),
      };
    }
  }

  /** Cancellation first (the user's word wins), then the budgets. Null when the pursuit may go on. */
  private stopIfNeeded(run: PursuitRun): PursuitOutcome | null {
    if (run.options.signal?.aborted) return this.cancelled(run);
    const elapsed = this.clock.now() - run.startedAt;
    if (run.budget.signal.aborted || elapsed >= this.limits.wallClockMs) {
      return this.abandoned(
        run,
        'wall_clock',
        `Wall-clock limit reached: ${elapsed} ms elapsed (limit ${this.limits.wallClockMs} ms)`,
      );
    }
    if (run.progress.executedSteps.length >= this.limits.maxSteps) {
      return this.abandoned(
        run,
        'max_steps',
        `Step limit reached: ${run.progress.executedSteps.length} steps executed (limit ${this.limits.maxSteps})`,
      );
    }
    return null;
  }

  private afterError(run: PursuitRun, e: unknown): PursuitOutcome {
    // A rejection caused by our own abort is the abort, not a failure.
    if (run.options.signal?.aborted || run.budget.signal.aborted) {
      const stop = this.stopIfNeeded(run);
      if (stop !== null) return stop;
    }
    return this.failed(run, toErrorInfo(e), 'determiner failed');
  }

  private resolved(run: PursuitRun, decision: Resolution): PursuitOutcome {
    this.ctx.info(`Goal pursuit resolved (${decision.status}): ${decision.reason}`);
    return this.outcome(run, pursuitStatusOf(decision.status), decision.reason, decision.response, {
      resolution: decision,
    });
  }

  private cancelled(run: PursuitRun): PursuitOutcome {
    this.ctx.info('Goal pursuit cancelled');
    return this.outcome(
      run,
      'cancelled',
      'Pursuit cancelled',
      partialResponse('The pursuit was cancelled', run.progress),
    );
  }

  private abandoned(run: PursuitRun, limit: PursuitLimit, reason: string): PursuitOutcome {
    this.ctx.warning(`Goal pursuit abandoned: ${reason}`);
    return this.outcome(
      run,
      'abandoned',
      reason,
      partialResponse(`Stopped before the goal was resolved (${reason})`, run.progress),
      {
        limitHit: limit,
      },
    );
  }

  private failed(run: PursuitRun, error: ErrorInfo, what: string): PursuitOutcome {
    const reason = `Pursuit failed: ${what} (${error.code}): ${error.message}`;
    this.ctx.error(`Goal pursuit failed with error: ${error.message}`);
    return this.outcome(run, 'failed', reason, partialResponse(reason, run.progress), { error });
  }

  private outcome(
    run: PursuitRun,
    status: PursuitStatus,
    reason: string,
    response: string,
    extra: { resolution?: Resolution; limitHit?: PursuitLimit; error?: ErrorInfo } = {},
  ): PursuitOutcome {
    return {
      goal: run.goal,
      status,
      reason,
      response,
      executedSteps: run.progress.executedSteps,
      resolution: extra.resolution ?? null,
      ...(extra.limitHit === undefined ? {} : { limitHit: extra.limitHit }),
      ...(extra.error === undefined ? {} : { error: extra.error }),
      resolvedAt: this.isoNow(),
    };
  }

  private isoNow(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** State of one `handleGoal` call. */
class PursuitRun {
  progress: PursuitProgress;
  readonly startedAt: number;
  /** Aborted by the wall-clock timer; combined with the caller's signal for everything passed down. */
  readonly budget = new AbortController();
  readonly signal: AbortSignal;

  constructor(
    readonly goal: Goal,
    readonly options: HandleGoalOptions,
    now: number,
  ) {
    this.progress = { goal, executedSteps: options.resume?.executedSteps ?? [] };
    this.startedAt = options.startedAt ?? now;
    this.signal =
      options.signal === undefined
        ? this.budget.signal
        : AbortSignal.any([options.signal, this.budget.signal]);
  }
}

function assertDecision(decision: unknown): asserts decision is Decision {
  const kind = (decision as { kind?: unknown } | null | undefined)?.kind;
  if (kind !== 'operation' && kind !== 'resolution') {
    throw new TypeError('the determiner returned neither an OperationPlan nor a Resolution');
  }
}

/** The best answer a pursuit that did not resolve can give: what happened and what was done. */
function partialResponse(header: string, progress: PursuitProgress): string {
  const steps = progress.executedSteps;
  if (steps.length === 0) return `${header}. No steps were executed.`;
  return [`${header}. ${steps.length} step(s) executed:`, ...formatSteps(steps)].join('\n');
}
