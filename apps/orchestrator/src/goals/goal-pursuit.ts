import {
  type Goal,
  GoalExecutor,
  type InteractionHistory,
  autonomousGoal,
  operationPlan,
  toErrorInfo,
  userGoal,
} from '@novelrag/agenturn';
import type { TraceDraft } from '@novelrag/bus';
import {
  type ErrorEnvelope,
  ErrorCode,
  FINAL_TRACE_KINDS,
  type GoalRecord,
  type GoalSubmission,
  ToolName,
  errorEnvelope,
  isTerminalStatus,
} from '@novelrag/contracts';
import { GoalInteractions } from '../interactions/goal-interactions';
import { ActionDetermineLoop, type ActionDetermineLoopOptions, LlmGoalTranslator } from '../loop';
import { formatThreadHistory } from '../threads/thread-store';
import { ClaimWatch } from '../tools/claim-watch';
import { RemoteToolExecutor, invocationIdOf } from '../tools/remote-tool-executor';
import { GoalCheckpoint, Superseded, isTransientStoreError } from './goal-checkpoint';
import { GoalExecutionContext, onRuntimeEvent } from './goal-context';
import { type AppliedLimits, finalEvent, finalOutcome, finishGoal, historyEntryOf } from './goal-finish';
import { earlyOutcome, newGoalRecord, outcomeOfStep, stepRecordOf, toJsonObject } from './goal-records';
import { GoalTrace } from './goal-trace';
import { ResumingDeterminer, Suspended, dispatchTracing } from './pursuit-parts';
import type { Delivery, Planner, PursuitDeps, PursuitResult } from './pursuit-types';
import type { RunningGoal } from './running-goals';

export type { Delivery, PursuitDeps, PursuitResult, PursuitSettings } from './pursuit-types';

/**
 * One delivery of one goal: take the thread, start or resume from the checkpoint, pursue with the ActionDetermineLoop
 * and the remote tools, checkpoint every decision and step, and record the outcome.
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
    return 'ack';
  }
  const held = await deps.leases.acquire({
    threadId: record.threadId,
    goalId: record.goalId,
    seq: delivery.seq,
    maxWaitMs: settings.threadWaitMs,
    signal: suspend,
    onWait: () => delivery.keepAlive(),
  });
  if (!held) return suspend.aborted ? 'release' : 'retry';
  try {
    record = (await store.get(submission.goalId)) ?? record;
    // Cancelled by the gateway while it waited for the thread (or ended by an earlier delivery meanwhile).
    if (isTerminalStatus(record.status)) {
      await settleFinished(record, deps);
      return 'ack';
    }
    await publisher.resume(record.goalId); // continue the numbering of whoever traced this goal before
    const run = new PursuitRun(submission, record, delivery, deps, suspend, held.lost);
    return await run.execute();
  } finally {
    publisher.forget(record.goalId);
    await held.release().catch(() => undefined);
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

class PursuitRun implements RunningGoal {
  readonly goalId: string;
  private readonly trace: GoalTrace;
  private readonly checkpoint: GoalCheckpoint;
  private readonly cancelled = new AbortController();
  private readonly overBudget = new AbortController();
  /** Aborted once another pursuit took the goal over (a fenced checkpoint write or read saw it). */
  private readonly superseded = new AbortController();
  /**
   * A transient store error that failed a step's checkpoint or workspace save. The executor ends the pursuit as
   * `failed` on any hook error; this one is rethrown instead, so the goal is handed back and resumed from its last
   * checkpoint rather than failed for a hiccup.
   */
  private storeFailure: { readonly error: unknown } | undefined;
  /** The `attempts` this pursuit wrote at pickup (undefined before it). */
  private attempt: number | undefined;
  private readonly tokenBudget: number;
  private requestedBy: string | undefined;
  private interactions: GoalInteractions | undefined;

  constructor(
    private readonly submission: GoalSubmission,
    record: GoalRecord,
    private readonly delivery: Delivery,
    private readonly deps: PursuitDeps,
    private readonly suspend: AbortSignal,
    private readonly lost: AbortSignal,
  ) {
    this.goalId = record.goalId;
    this.tokenBudget = record.limits.tokenBudget ?? deps.settings.tokenBudget;
    this.trace = new GoalTrace(
      deps.publisher,
      record.goalId,
      record.threadId,
      deps.log,
      record.usage,
      (u) => {
        if (this.tokenBudget > 0 && u.totalTokens > this.tokenBudget) this.overBudget.abort();
      },
    );
    this.checkpoint = new GoalCheckpoint(deps.store, record, this.trace, () => this.superseded.abort());
  }

  // RunningGoal: what the bus handlers call.
  cancel(requestedBy?: string): void {
    this.requestedBy ??= requestedBy;
    this.cancelled.abort();
  }
  interact(request: Parameters<GoalInteractions['request']>[0]) {
    return this.interactions
      ? this.interactions.request(request)
      : Promise.resolve({
          ok: false as const,
          error: errorEnvelope('CANCELLED', 'no tool of this goal is running'),
        });
  }
  answer(answer: Parameters<GoalInteractions['answer']>[0]) {
    return Promise.resolve(
      this.interactions
        ? this.interactions.answer(answer)
        : {
            ok: false as const,
            error: errorEnvelope(
              'INTERACTION_NOT_PENDING',
              `goal ${answer.goalId} is not waiting for interaction ${answer.interactionId}`,
            ),
          },
    );
  }
  runtime(event: Parameters<RunningGoal['runtime']>[0]): void {
    onRuntimeEvent(this.trace, this.deps.backlog, event);
  }

  async execute(): Promise<PursuitResult> {
    const { deps } = this;
    deps.running.add(this);
    const poll = setInterval(() => {
      void this.checkpoint.refresh().then(
        (r) => r.cancelRequested && this.cancel(),
        () => undefined,
      );
    }, deps.settings.cancelPollMs);
    poll.unref();
    let result: PursuitResult;
    try {
      result = await this.pursue().catch((err: unknown) => {
        // Another pursuit owns the goal now: it acks or hands back the message, not this one.
        if (err instanceof Superseded) return 'drop' as const;
        throw err;
      });
    } finally {
      clearInterval(poll);
      deps.running.remove(this);
      await this.trace.flush();
    }
    if (result === 'release') await this.undoAttempt();
    return result;
  }

  /**
   * A hand-back because this instance shuts down is no failed attempt: the one counted at pickup is undone, so rolling
   * restarts never use up `maxAttempts` (a crash cannot undo it and still counts). Done while the thread is still held,
   * so the next pickup cannot interleave. Best effort: a failed undo only costs an attempt. (The count may then equal
   * the fence of an older, stale pursuit again; such a one can only write while nobody pursues the goal, until the next
   * pickup moves the count on.)
   */
  private async undoAttempt(): Promise<void> {
    if (this.attempt === undefined) return;
    await this.checkpoint
      .write((current) => ({ attempts: Math.max(0, (current.attempts ?? 0) - 1) }))
      .catch((err: unknown) =>
        this.deps.log.warn('attempt of a handed-back goal not undone', {
          goalId: this.goalId,
          error: err instanceof Error ? err.message : String(err),
        }),
      );
  }

  private stopped(): PursuitResult | null {
    if (this.lost.aborted || this.superseded.signal.aborted) return 'drop';
    if (this.suspend.aborted) return 'release';
    return null;
  }

  private async pursue(): Promise<PursuitResult> {
    const { deps, checkpoint } = this;
    const { settings } = deps;
    const finish = { checkpoint, trace: this.trace, threads: deps.threads };
    let record = checkpoint.record;

    if (record.cancelRequested) {
      await finishGoal(earlyOutcome(record, 'cancelled', 'cancelled before the pursuit resumed'), finish);
      return 'ack';
    }
    // Counted per started pursuit, not per delivery: waiting for a busy thread is not a failed attempt.
    const attempts = record.attempts ?? 0;
    if (attempts >= settings.maxAttempts) {
      const error = errorEnvelope(
        'INTERNAL',
        `gave up after ${attempts} pursuits that did not finish the goal`,
      );
      await finishGoal(earlyOutcome(record, 'failed', error.message, error), finish);
      return 'ack';
    }

    const wallClockMs = record.limits.wallClockMs ?? settings.wallClockMs;
    const deadline = record.deadline ?? Date.now() + wallClockMs;
    const limits: AppliedLimits = {
      maxSteps: record.limits.maxSteps ?? settings.maxSteps,
      wallClockMs,
      tokenBudget: this.tokenBudget,
      startedAt: deadline - wallClockMs,
    };
    const resumed = record.status !== 'queued';
    if (!resumed) {
      // The gateway does not trace; the first pickup records the acceptance, dated when the goal was accepted.
      this.trace.emit({
        kind: 'goal.accepted',
        at: record.createdAt,
        source: record.source,
        request: record.request,
        goal: record.goal,
        lang: record.lang,
        limits: record.limits,
      });
    }
    record = await checkpoint.write(
      (current) => ({
        status: 'running',
        deadline,
        pendingInteraction: undefined,
        attempts: (current.attempts ?? 0) + 1,
      }),
      resumed ? 'resumed after a redelivery' : 'picked up',
    );
    // From here on, every write of this pursuit is refused once another pursuit picked the goal up after it.
    this.attempt = record.attempts ?? 0;
    checkpoint.fence(this.attempt);

    const thread = await deps.threads.get(record.threadId);
    const historyText = formatThreadHistory(thread.history, settings.historyItems ?? 5);
    const history: InteractionHistory = {
      formatRecent: (n) => formatThreadHistory(thread.history, n),
    };
    const lang = record.lang ?? settings.defaultLang;
    const signal = AbortSignal.any([
      this.cancelled.signal,
      this.overBudget.signal,
      this.suspend,
      this.lost,
      this.superseded.signal,
    ]);

    // Request → goal, once (a resumed goal keeps its translation).
    let goalText = record.goal;
    if (goalText === null) {
      const translatorOptions = { model: deps.model, renderer: deps.renderer, lang, observer: this.trace };
      const translator = deps.translator
        ? deps.translator(translatorOptions)
        : new LlmGoalTranslator(translatorOptions);
      try {
        const translated = await translator.translate(record.request ?? '', record.beliefs, history, signal);
        goalText = translated.description;
      } catch (err) {
        const stop = this.stopped();
        if (stop) return stop;
        const info = toErrorInfo(err);
        const status = this.cancelled.signal.aborted ? 'cancelled' : 'failed';
        const code = ErrorCode.safeParse(info.code);
        const error = errorEnvelope(code.success ? code.data : 'INTERNAL', info.message);
        const reason = `the request could not be turned into a goal: ${info.message}`;
        await finishGoal(
          {
            ...earlyOutcome(record, status, reason, status === 'failed' ? error : undefined),
            tokens: this.trace.usage,
          },
          { ...finish, ...(this.requestedBy ? { requestedBy: this.requestedBy } : {}) },
        );
        return 'ack';
      }
      // Outside the try: a failed write is no failed translation (it throws, so the goal is handed back).
      const translatedGoal = goalText;
      record = await checkpoint.write(() => ({ goal: translatedGoal, usage: this.trace.usage }));
    }
    const goal = this.goalOf(goalText, record);
    this.trace.emit({
      kind: 'goal.started',
      attempt: this.delivery.attempt,
      ...(record.steps.length > 0 ? { resumedFromStep: record.steps.length } : {}),
      goal: goalText,
    });

    const loopOptions: ActionDetermineLoopOptions = {
      model: deps.model,
      renderer: deps.renderer,
      resources: deps.resources,
      lang,
      observer: this.trace,
      maxIterations: record.limits.maxIterations ?? settings.maxIterations,
      minIterations: settings.minIterations,
      workspace: thread.workspace,
      ...(record.assessment ? { previousAssessment: record.assessment } : {}),
      history: historyText,
    };
    const loop = deps.planner ? deps.planner(loopOptions) : new ActionDetermineLoop(loopOptions);
    const remote = new RemoteToolExecutor(deps.nc, {
      goalId: record.goalId,
      threadId: record.threadId,
      lang,
      firstStep: record.steps.length,
      defaultTimeoutMs: settings.toolTimeoutMs,
      timeoutOf: (tool) => deps.tools.timeoutOf(tool),
      workspace: () => loop.toolWorkspace(),
      beliefs: record.beliefs,
      ...dispatchTracing(this.trace, deps.tools),
      claimWatch: new ClaimWatch(deps.nc, {
        graceMs: settings.toolClaimGraceMs,
        served: (tool) => deps.tools.served(tool),
        bucketOf: (tool) => deps.tools.resultsBucketOf(tool),
      }),
    });
    this.interactions = new GoalInteractions({
      checkpoint,
      trace: this.trace,
      current: () => remote.current(),
      deadline,
      defaultTimeoutMs: settings.interactionTimeoutMs,
      signal,
      // Handed back (SIGTERM, lost thread, taken over): a pending question is answered "retry", not "cancelled",
      // so the runner records nothing and the re-sent invocation asks again on the next instance.
      handBack: AbortSignal.any([this.suspend, this.lost, this.superseded.signal]),
    });

    const inFlight = record.inFlight;
    const replay =
      inFlight && inFlight.index === record.steps.length
        ? operationPlan(inFlight.plan.tool, inFlight.plan.params, inFlight.plan.reason)
        : undefined;
    this.trace.step = record.steps.length;
    const executor = new GoalExecutor({
      beliefs: record.beliefs,
      tools: deps.tools.live(),
      determiner: new ResumingDeterminer(replay, loop),
      executor: remote,
      ctx: new GoalExecutionContext(record.goalId, deps.backlog),
      limits: { maxSteps: limits.maxSteps, wallClockMs },
      hooks: {
        onDecision: async (decision, progress) => {
          if (decision.kind === 'resolution') {
            this.trace.emit({
              kind: 'resolution',
              status: decision.status,
              response: decision.response,
              reason: decision.reason,
            });
            return;
          }
          const index = progress.executedSteps.length;
          if (!ToolName.safeParse(decision.tool).success) return; // refused by the executor, never dispatched
          await this.durably(() =>
            checkpoint.write(() => ({
              inFlight: {
                index,
                plan: {
                  tool: decision.tool,
                  params: toJsonObject(decision.parameters),
                  reason: decision.reason,
                },
                invocationId: invocationIdOf(record.goalId, index),
                dispatchedAt: new Date().toISOString(),
              },
              ...this.progressFields(loop),
            })),
          );
        },
        onStep: async (progress, outcome) => {
          // A step cut short because this instance stops is not an outcome: it is re-sent on resume.
          if (outcome.status === 'cancelled' && (this.suspend.aborted || this.lost.aborted))
            throw new Suspended('suspended');
          const index = progress.executedSteps.length - 1;
          this.trace.step = index + 1;
          const step = stepRecordOf(index, outcome, invocationIdOf(record.goalId, index));
          await this.durably(async () => {
            const saved = await checkpoint.write((current) => ({
              steps: [...current.steps.filter((s) => s.index < index), step],
              inFlight: undefined,
              ...this.progressFields(loop),
            }));
            await deps.threads.saveWorkspace(saved.threadId, loop.workspace());
            if (saved.cancelRequested) this.cancel();
          });
        },
      },
    });

    const outcome = await executor.handleGoal(goal, {
      signal,
      history,
      resume: { goal, executedSteps: record.steps.map(outcomeOfStep) },
      startedAt: limits.startedAt,
    });
    const stop = this.stopped();
    if (stop) return stop;
    // Handed back (the consumer naks it with a delay, bounded by its failed-delivery limit): the redelivery resumes
    // from the last stored checkpoint, re-sending a step that ran unrecorded under the same invocation id.
    if (this.storeFailure) throw this.storeFailure.error;
    const tokenBudgetHit = this.overBudget.signal.aborted && !this.cancelled.signal.aborted;
    await finishGoal(finalOutcome(outcome, this.trace, tokenBudgetHit, limits), {
      ...finish,
      workspace: loop.workspace(),
      limits,
      ...(this.requestedBy ? { requestedBy: this.requestedBy } : {}),
    });
    return 'ack';
  }

  /** Runs a checkpoint hook, remembering a transient store error it threw (for `pursue` to hand the goal back). */
  private async durably(save: () => Promise<unknown>): Promise<void> {
    try {
      await save();
    } catch (err) {
      if (isTransientStoreError(err)) this.storeFailure ??= { error: err };
      throw err; // either way the executor must stop here: continuing would outrun the checkpoint
    }
  }

  private progressFields(loop: Planner): Partial<GoalRecord> {
    const assessment = loop.lastAssessment();
    return { ...(assessment ? { assessment } : {}), usage: this.trace.usage };
  }

  private goalOf(description: string, record: GoalRecord): Goal {
    const createdAt = new Date(record.createdAt);
    if (record.source === 'autonomous') {
      const decider = this.submission.decider;
      return autonomousGoal(description, decider?.name ?? 'autonomous', decider?.context, createdAt);
    }
    return userGoal(description, record.request ?? description, createdAt);
  }
}
