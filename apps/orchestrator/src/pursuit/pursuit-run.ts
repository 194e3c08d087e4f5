import { type Goal, type PursuitOutcome, autonomousGoal, userGoal } from '@novelrag/agenturn';
import {
  DEFAULT_AGENT_KIND,
  type GoalOutcome,
  type GoalRecord,
  type GoalSubmission,
  type ThreadRecord,
  errorEnvelope,
  errorReply,
} from '@novelrag/contracts';
import type { AgentKindDefinition, AgentRun } from '../agents';
import type { RunningGoal } from '../bus/running-goals';
import { formatThreadHistory } from '../threads/thread-history';
import { GoalCheckpoint } from './checkpoint';
import { GoalExecutionContext } from './execution-context';
import { type GoalSpans, currentTraceparent, inGoalSpan } from './goal-spans';
import { type AppliedLimits, type FinishOptions, finalOutcome, finishGoal } from './finish';
import { GoalInteractions, notPending } from './interactions';
import { earlyOutcome, outcomeOfStep } from './records';
import { agentCheckpoints, stepCheckpoints } from './step-checkpoints';
import {
  FINISHED,
  type PursuitEnd,
  type PursuitResult,
  type PursuitStop,
  deliveryOf,
  handsBack,
  stopReasonOf,
} from './stop';
import { GoalTrace } from './trace';
import { translateRequest } from './translation';
import { type Bounds, type Scene, inFlightReplay, loopLimits } from './run-parts';
import type { Delivery, PursuitDeps } from './types';

/**
 * One pursuit of a goal whose thread this instance holds: pick it up (attempt counted, checkpoint fenced), translate a
 * request once, hand the goal to its agent kind with the durability hooks, and record the end. Every way it can stop is
 * a StopReason on one PursuitStop; `deliveryOf` turns the end into the fate of the message.
 */
export class PursuitRun implements RunningGoal {
  readonly goalId: string;
  private readonly trace: GoalTrace;
  private readonly checkpoint: GoalCheckpoint;
  /** The `attempts` this pursuit wrote at pickup (undefined before it). */
  private attempt: number | undefined;
  private readonly tokenBudget: number;
  private interactions: GoalInteractions | undefined;
  /** The goal's step spans, once the goal span started. */
  private spans: GoalSpans | undefined;
  /** Who cancelled the goal, from the first cancel event that named someone. */
  private cancelledBy: string | undefined;

  constructor(
    private readonly submission: GoalSubmission,
    record: GoalRecord,
    private readonly delivery: Delivery,
    private readonly deps: PursuitDeps,
    private readonly stop: PursuitStop,
    /** The goal's thread, read once the thread was held (alongside the goal record). */
    private readonly thread: Promise<ThreadRecord>,
  ) {
    this.goalId = record.goalId;
    const tokenBudget = record.limits.tokenBudget ?? deps.settings.tokenBudget;
    this.tokenBudget = tokenBudget;
    this.trace = new GoalTrace(
      deps.publisher,
      record.goalId,
      record.threadId,
      deps.log,
      record.usage,
      (u) => {
        if (tokenBudget > 0 && u.totalTokens > tokenBudget)
          stop.stop({ kind: 'budget', limit: 'token_budget' });
      },
    );
    // A pursuit that lost its fence emits nothing more: the goal's trace belongs to the pursuit that took it over.
    this.checkpoint = new GoalCheckpoint(deps.store, record, this.trace, () => {
      this.trace.close();
      stop.stop({ kind: 'superseded' });
    });
  }

  // RunningGoal: what the bus handlers call.
  cancel(requestedBy?: string): void {
    // The record's flag (polled) may stop the pursuit before the cancel event names who asked: keep the name for the end.
    if (requestedBy) this.cancelledBy ??= requestedBy;
    this.stop.stop({ kind: 'cancelled', ...(requestedBy ? { requestedBy } : {}) });
  }
  answer(answer: Parameters<GoalInteractions['answer']>[0]) {
    return Promise.resolve(
      this.interactions ? this.interactions.answer(answer) : errorReply(notPending(answer)),
    );
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
    let end: PursuitEnd;
    try {
      end = await this.pursueInSpan().catch((err: unknown) => {
        // A fenced write refused: another pursuit owns the goal now, it acks or hands back the message, not this one.
        const reason = stopReasonOf(err);
        if (reason) return reason;
        throw err;
      });
    } finally {
      clearInterval(poll);
      deps.running.remove(this);
      await this.trace.flush();
    }
    if (end.kind === 'handed_back') await this.undoAttempt();
    return deliveryOf(end);
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

  /** The pursuit inside the goal's span (see `inGoalSpan`), with the step spans the agent kind runs its steps in. */
  private pursueInSpan(): Promise<PursuitEnd> {
    return inGoalSpan(this.checkpoint.record, this.delivery.attempt, (spans) => {
      this.spans = spans;
      return this.pursue();
    });
  }

  private async pursue(): Promise<PursuitEnd> {
    const agent = this.deps.agents.get(this.checkpoint.record.agent ?? DEFAULT_AGENT_KIND);
    const early = await this.endBeforeStart(agent);
    if (early) return early;
    const bounds = await this.pickUp();
    const scene = this.sceneOf(this.checkpoint.record, await this.thread);
    const kind = agent as AgentKindDefinition;
    const request = this.checkpoint.record.request;
    const goalText =
      kind.takesRequestAsGoal && this.checkpoint.record.goal === null && request !== null
        ? request
        : await this.goalText(scene);
    if (typeof goalText !== 'string') return goalText;
    return this.pursueWith(kind, goalText, scene, bounds);
  }

  /** Ends a goal that must not be pursued (again): cancelled meanwhile, out of attempts, or of a kind not known here. */
  private async endBeforeStart(agent: AgentKindDefinition | undefined): Promise<PursuitEnd | null> {
    const record = this.checkpoint.record;
    if (record.cancelRequested) {
      await this.finish(earlyOutcome(record, 'cancelled', 'cancelled before the pursuit resumed'));
      return FINISHED;
    }
    // Counted per started pursuit, not per delivery: waiting for a busy thread is not a failed attempt.
    const attempts = record.attempts ?? 0;
    const error =
      attempts >= this.deps.settings.maxAttempts
        ? errorEnvelope('INTERNAL', `gave up after ${attempts} pursuits that did not finish the goal`)
        : agent === undefined
          ? errorEnvelope(
              'VALIDATION_FAILED',
              `no agent of kind ${record.agent ?? DEFAULT_AGENT_KIND} runs here`,
            )
          : undefined;
    if (!error) return null;
    await this.finish(earlyOutcome(record, 'failed', error.message, error));
    return FINISHED;
  }

  /** Marks the goal running (traced as accepted on its first pickup), counts the attempt and fences the checkpoint. */
  private async pickUp(): Promise<Bounds> {
    const { settings } = this.deps;
    const record = this.checkpoint.record;
    const wallClockMs = record.limits.wallClockMs ?? settings.wallClockMs;
    const deadline = record.deadline ?? Date.now() + wallClockMs;
    const resumed = record.status !== 'queued';
    // The gateway does not trace; the first pickup records the acceptance, dated when the goal was accepted, first in
    // its trace. Only once the goal is marked running: a goal still queued has nothing traced (what its first pickup
    // relies on to number its events without reading the stream, pickup.ts).
    const accepted = () =>
      this.trace.emit({
        kind: 'goal.accepted',
        at: record.createdAt,
        source: record.source,
        request: record.request,
        goal: record.goal,
        lang: record.lang,
        limits: record.limits,
      });
    const picked = await this.checkpoint.write(
      (current) => ({
        status: 'running',
        deadline,
        // A question asked before the crash stays recorded (with any answer given since): the re-sent call asks it again.
        attempts: (current.attempts ?? 0) + 1,
        // A goal accepted without tracing joins the trace of its first traced pursuit.
        ...(current.traceparent ? {} : currentTraceparent()),
      }),
      resumed ? 'resumed after a redelivery' : 'picked up',
      resumed ? undefined : accepted,
    );
    // From here on, every write of this pursuit is refused once another pursuit picked the goal up after it.
    this.attempt = picked.attempts ?? 0;
    this.checkpoint.fence(this.attempt);

    const limits = {
      maxSteps: record.limits.maxSteps ?? settings.maxSteps,
      wallClockMs,
      tokenBudget: this.tokenBudget,
      startedAt: deadline - wallClockMs,
    };
    return { limits, deadline };
  }

  private sceneOf(record: GoalRecord, thread: ThreadRecord): Scene {
    const { settings } = this.deps;
    return {
      thread,
      history: { formatRecent: (n) => formatThreadHistory(thread.history, n) },
      historyText: formatThreadHistory(thread.history, settings.historyItems ?? 5),
      lang: record.lang ?? settings.defaultLang,
    };
  }

  /** The goal statement: the stored one, or the request translated once (a resumed goal keeps its translation). */
  private async goalText(scene: Scene): Promise<string | PursuitEnd> {
    const record = this.checkpoint.record;
    if (record.goal !== null) return record.goal;
    const translated = await translateRequest({
      record,
      deps: this.deps,
      trace: this.trace,
      history: scene.history,
      lang: scene.lang,
      signal: this.stop.signal,
    });
    if ('error' in translated) {
      const reason = this.stop.reason;
      if (handsBack(reason)) return reason;
      const status = reason?.kind === 'cancelled' ? 'cancelled' : 'failed';
      const why = `the request could not be turned into a goal: ${translated.error.message}`;
      const error = status === 'failed' ? translated.error : undefined;
      await this.finish({ ...earlyOutcome(record, status, why, error), tokens: this.trace.usage });
      return FINISHED;
    }
    // A failed write is no failed translation: it throws, so the goal is handed back.
    await this.checkpoint.write(() => ({ goal: translated.goal, usage: this.trace.usage }));
    return translated.goal;
  }

  /** Hands the goal to its agent kind, with the executor, the runtime and the durability hooks; records the end. */
  private async pursueWith(
    agent: AgentKindDefinition,
    goalText: string,
    scene: Scene,
    bounds: Bounds,
  ): Promise<PursuitEnd> {
    const { deps, checkpoint, trace } = this;
    const record = checkpoint.record;
    trace.emit({
      kind: 'goal.started',
      attempt: this.delivery.attempt,
      ...(record.steps.length > 0 ? { resumedFromStep: record.steps.length } : {}),
      goal: goalText,
    });
    const started: { run?: AgentRun } = {}; // the agent, once started (the executor and the hooks read it)
    const executor = deps.executors({
      goalId: record.goalId,
      threadId: record.threadId,
      lang: scene.lang,
      firstStep: record.steps.length,
      beliefs: record.beliefs,
      workspace: () => started.run?.toolWorkspace(),
      trace,
      tokensLeft: () => (this.tokenBudget > 0 ? this.tokenBudget - trace.usage.totalTokens : undefined),
    });
    this.interactions = new GoalInteractions({
      checkpoint,
      trace,
      running: (invocationId) => executor.running(invocationId),
      deadline: bounds.deadline,
      defaultTimeoutMs: deps.settings.interactionTimeoutMs,
      signal: this.stop.signal,
    });
    trace.step = record.steps.length;
    const replay = inFlightReplay(record);
    const checkpointing = {
      goalId: record.goalId,
      checkpoint,
      trace,
      threads: deps.threads,
      stop: this.stop,
      run: () => started.run,
    };
    const run = agent.start({
      goal: this.goalOf(goalText, record),
      resume: { executedSteps: record.steps.map(outcomeOfStep), ...(replay ? { replay } : {}), record },
      beliefs: record.beliefs,
      lang: scene.lang,
      history: scene.history,
      historyText: scene.historyText,
      workspace: scene.thread.workspace,
      tools: deps.tools.live(),
      findTools: (names) => deps.tools.discoverFor(names),
      executor,
      execution: new GoalExecutionContext({
        goalId: record.goalId,
        trace,
        backlog: deps.backlog,
        interactions: this.interactions,
      }),
      trace,
      emit: (draft) => trace.emit(draft),
      model: deps.model,
      renderer: deps.renderer,
      resources: deps.resources,
      limits: loopLimits(bounds.limits, record, deps.settings),
      signal: this.stop.signal,
      ...(this.spans ? { spans: this.spans } : {}),
      hooks: stepCheckpoints(checkpointing),
      checkpoints: agentCheckpoints(checkpointing),
    });
    started.run = run;
    return this.settle(await run.pursue(), run, bounds.limits);
  }

  /**
   * After the agent: a hand-back ends here (resumed from the last checkpoint); otherwise the outcome is recorded. A
   * stop for the token budget (not the user) ends the goal abandoned for `token_budget` with the best partial answer.
   */
  private async settle(outcome: PursuitOutcome, run: AgentRun, limits: AppliedLimits): Promise<PursuitEnd> {
    const reason = this.stop.reason;
    if (handsBack(reason)) return reason;
    const workspace = run.workspace();
    const extras = outcome.status === 'completed' ? run.outcomeExtras?.() : undefined;
    await this.finish(
      { ...finalOutcome(outcome, this.trace, reason?.kind === 'budget', limits), ...extras },
      {
        ...(workspace ? { workspace } : {}),
        limits,
      },
    );
    return FINISHED;
  }

  private finish(
    outcome: GoalOutcome,
    extra: Pick<FinishOptions, 'workspace' | 'limits'> = {},
  ): Promise<void> {
    const reason = this.stop.reason;
    const requestedBy = reason?.kind === 'cancelled' ? (reason.requestedBy ?? this.cancelledBy) : undefined;
    return finishGoal(outcome, {
      checkpoint: this.checkpoint,
      trace: this.trace,
      threads: this.deps.threads,
      ...extra,
      ...(requestedBy ? { requestedBy } : {}),
    });
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
