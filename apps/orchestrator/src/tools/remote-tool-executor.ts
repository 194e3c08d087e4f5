import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ExecutionContext, OperationOutcome, OperationPlan, ToolExecutor } from '@novelrag/agenturn';
import {
  type ErrorEnvelope,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  type ToolWorkspace,
  describeIssues,
  errorEnvelope,
  jsonParamsParser,
} from '@novelrag/contracts';
import { SpanKind, failSpan, inSpan } from '@novelrag/telemetry';
import { ZodError } from 'zod';
import { CallRouter, type DroppedMessage, type ToolModelCall, contextForCall } from './call-messages';
import { sleep } from './claim-watch';
import { ResourceLanes, resourcesOf } from './resource-lanes';
import { type AttemptClaimWatch, type AttemptEnd, sendAttempt } from './tool-attempt';

export interface RemoteToolExecutorOptions {
  readonly goalId: string;
  readonly threadId?: string;
  readonly lang?: string;
  /** Index of the next step (continues after resumed steps). */
  readonly firstStep: number;
  /** Default per-invocation budget when the tool does not declare one. */
  readonly defaultTimeoutMs?: number;
  /** A tool's declared timeout (from its discovered metadata), if any. */
  readonly timeoutOf?: (tool: string) => number | undefined;
  /**
   * Whether a tool declares itself idempotent (from its discovered metadata). Unknown counts as not: a call whose
   * tool instance disappeared while it may have been running it is then failed, never sent again.
   */
  readonly idempotentOf?: (tool: string) => boolean | undefined;
  /** Sends of one call at most: the first and the re-sends after a lost call or a refusal (same invocation id). */
  readonly maxAttempts?: number;
  /** How long past the deadline a late reply is still heard, to name it in the error (see LATE_REPLY_GRACE_MS). */
  readonly lateReplyGraceMs?: number;
  readonly now?: () => number;
  /** The planner's context when it decided the step (sent so content tools read what the planner read). */
  readonly workspace?: () => ToolWorkspace | undefined;
  /** The goal's beliefs (content directive of tool prompts). */
  readonly beliefs?: readonly string[];
  /** Tokens the goal has left (sent with each call so the runner stops a tool that uses more); undefined: no limit. */
  readonly tokensLeft?: () => number | undefined;
  /** Before each attempt is sent (trace `operation.dispatched`). Must not throw. */
  readonly onDispatch?: (invocation: ToolInvocation, reason: string) => void;
  /** Once per step when it ended (trace `operation.outcome`). Must not throw. */
  readonly onOutcome?: (report: DispatchReport) => void;
  /** A runtime event or question of a call that could not be read (subject and issues only). */
  readonly onDropped?: DroppedMessage;
  /** A model call the tool reported (its tokens count against the goal's budget). Must not throw. */
  readonly onModelCall?: (invocation: ToolInvocation, call: ToolModelCall) => void;
  /**
   * Notices a call that is lost while it is pending: its runner stopped renewing its claim in `tool-results`, or (a
   * tool that writes no claims) none of the tool's services answers a ping any more.
   */
  readonly claimWatch?: AttemptClaimWatch;
}

/** How one step's invocation ended, for the trace. */
export interface DispatchReport {
  readonly invocation: ToolInvocation;
  readonly outcome: OperationOutcome;
  readonly error?: ErrorEnvelope;
  readonly durationMs: number;
  /** The runner served a recorded result for this invocation id instead of running the tool again. */
  readonly replayed: boolean;
}

/** Deterministic per goal and step, so a retry after an orchestrator crash is recognised by the runner's KV. */
export function invocationIdOf(goalId: string, step: number): string {
  const raw = `${goalId}-s${step}`;
  return raw.length <= 128 ? raw : `inv-${createHash('sha256').update(raw).digest('hex').slice(0, 40)}`;
}

/**
 * A `ToolInvocation` in two parts, checked apart: what every call of the goal shares (goal, thread, subjects, language,
 * beliefs) once per executor, and what each call brings (step, tool, params, deadline, workspace, budget) per call.
 * Together they are exactly `ToolInvocation`'s fields, so an invocation built from both parts is a valid one.
 */
const GOAL_FIELDS = {
  schemaVersion: true,
  goalId: true,
  threadId: true,
  runtimeSubject: true,
  interactSubject: true,
  lang: true,
  beliefs: true,
} as const;
const GoalPart = ToolInvocation.pick(GOAL_FIELDS);
/** `ToolInvocation.omit(GOAL_FIELDS).safeParse`, faster (the parameters are the model's: checked as JSON). */
const parseCallPart = jsonParamsParser(ToolInvocation.omit(GOAL_FIELDS));

type Ended = Omit<OperationOutcome, 'operation' | 'startedAt' | 'completedAt'> & {
  readonly error?: ErrorEnvelope;
  readonly replayed?: boolean;
};

/**
 * The remote side of the ToolExecutor port: each OperationPlan becomes a `ToolInvocation` request to
 * `novelrag.tools.<tool>.invoke` (any runner of the queue group, or a third-party process), and what the tool says and
 * asks while it runs reaches the ExecutionContext of the call. Never throws: failures come back as failed outcomes
 * with a code, fed back to the model.
 *
 * One call, one attempt while the tool lives: the request waits for its reply until the call's whole deadline and is
 * given up before only when the call is known lost (no responders, its runner's claim went stale, no instance of the
 * tool answers pings). Only then is it sent again, with the SAME invocation id (a runner returns a recorded result
 * instead of running twice), and never when a non-idempotent tool's instance disappeared while it may have been running
 * the call. A tool's own UNAVAILABLE refusal (busy, stopping) is re-sent as well: the call did not run.
 */
export class RemoteToolExecutor implements ToolExecutor {
  private step: number;
  private readonly now: () => number;
  private readonly router: CallRouter;
  private readonly lanes = new ResourceLanes();
  /** The fields every call of the goal shares, checked at the first call (see GoalPart). */
  private goalPart: ReturnType<typeof GoalPart.safeParse> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: RemoteToolExecutorOptions,
  ) {
    this.step = options.firstStep;
    this.now = options.now ?? Date.now;
    this.router = new CallRouter(nc, options.goalId, options.onDropped);
  }

  /**
   * The call running now under that invocation id, if any (a tool's question is that call's). Several calls may run
   * at once: each `execute` numbers its step when it is called, and each call's messages reach its own context.
   */
  running(invocationId: string): ToolInvocation | undefined {
    return this.router.running(invocationId);
  }

  async execute(plan: OperationPlan, ctx: ExecutionContext, signal?: AbortSignal): Promise<OperationOutcome> {
    const step = this.step++;
    const started = this.now();
    const budgetMs = this.options.timeoutOf?.(plan.tool) ?? this.options.defaultTimeoutMs ?? 120_000;
    const invocation = this.invocationOf(plan, step, started + budgetMs);
    if ('error' in invocation) return this.outcome(plan, started, { failed: invocation.error });
    // Numbered above, when called; a call on a resource an earlier call of the group still works on waits for it.
    const resources = resourcesOf(plan.parameters);
    const leave = resources.length === 0 ? noLane : await this.lanes.enter(resources);
    const messages = this.router.open(invocation, contextForCall(ctx, invocation), (call) =>
      this.options.onModelCall?.(invocation, call),
    );
    let ended: Ended | undefined;
    try {
      ended = await inSpan(
        `execute_tool ${plan.tool}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': plan.tool,
            'gen_ai.tool.call.id': invocation.invocationId,
            'novelrag.step': step,
          },
        },
        async (span) => {
          const end = await this.attempts(plan, invocation, budgetMs, signal);
          if (end.error) failSpan(span, end.error, end.error.code);
          return end;
        },
      );
    } finally {
      messages.close();
      leave();
    }
    const outcome = this.outcome(plan, started, ended);
    this.options.onOutcome?.({
      invocation,
      outcome,
      ...(ended.error ? { error: ended.error } : {}),
      durationMs: Math.max(0, this.now() - started),
      replayed: ended.replayed === true,
    });
    return outcome;
  }

  /** Sends the invocation, and again only after a lost call or a refusal, until it ends or the deadline passes. */
  private async attempts(
    plan: OperationPlan,
    invocation: ToolInvocation,
    budgetMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Ended> {
    const maxAttempts = this.options.maxAttempts ?? 3;
    const staleClaims = new Set<number>();
    let last = errorEnvelope('TIMEOUT', `no reply from ${plan.tool} within its deadline of ${budgetMs} ms`);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (signal?.aborted) return cancelled();
      if (this.now() >= invocation.deadline) return failed(last);
      // The first attempt sends the invocation as built (it says attempt 1); a re-send is a copy with its number.
      const sent = attempt === invocation.attempt ? invocation : { ...invocation, attempt };
      this.options.onDispatch?.(sent, plan.reason);
      const end: AttemptEnd = await sendAttempt(this.nc, sent, {
        deadline: invocation.deadline,
        budgetMs,
        now: this.now,
        staleClaims,
        claimWatch: this.options.claimWatch,
        signal,
        lateReplyGraceMs: this.options.lateReplyGraceMs,
      });
      const verdict = this.verdictOf(end, plan.tool);
      if ('done' in verdict) return verdict.done;
      last = verdict.resend;
      const wait = Math.max(0, Math.min(250 * attempt, invocation.deadline - this.now()));
      if (!(await sleep(wait, signal ?? new AbortController().signal))) return cancelled();
    }
    return failed(last);
  }

  /** The end of the step, or the error to remember when the call may be sent again. */
  private verdictOf(end: AttemptEnd, tool: string): { done: Ended } | { resend: ErrorEnvelope } {
    switch (end.kind) {
      case 'cancelled':
        return { done: cancelled() };
      case 'failed':
        return { done: failed(end.error) };
      case 'lost':
        if (end.gone && this.options.idempotentOf?.(tool) !== true) {
          const why = `${end.error.message}; not sent again: ${tool} is not declared idempotent`;
          return { done: failed({ ...end.error, code: 'UNAVAILABLE', message: why }) };
        }
        return { resend: end.error };
      case 'replied': {
        const { output } = end;
        const replayed = output.replayed === true;
        if (output.type === 'result')
          return { done: { status: 'success', result: output.result, errorMessage: null, replayed } };
        if (output.error.code === 'CANCELLED') return { done: { ...cancelled(output.error), replayed } };
        if (output.error.code === 'UNAVAILABLE' && output.error.retryable) return { resend: output.error };
        return { done: { ...failed(output.error), replayed } };
      }
    }
  }

  private invocationOf(
    plan: OperationPlan,
    step: number,
    deadline: number,
  ): ToolInvocation | { error: ErrorEnvelope } {
    const workspace = this.options.workspace?.();
    const tokenBudget = this.options.tokensLeft?.();
    const call = parseCallPart({
      invocationId: invocationIdOf(this.options.goalId, step),
      step,
      tool: plan.tool,
      params: plan.parameters,
      deadline,
      attempt: 1,
      ...(workspace ? { workspace } : {}),
      ...(tokenBudget === undefined ? {} : { tokenBudget: Math.max(0, Math.floor(tokenBudget)) }),
    });
    const goal = (this.goalPart ??= this.goalPartOf());
    if (goal.success && call.success) return { ...goal.data, ...call.data };
    const issues = [goal, call].flatMap((part) => (part.success ? [] : part.error.issues));
    return {
      error: errorEnvelope('VALIDATION_FAILED', `invalid tool call: ${describeIssues(new ZodError(issues))}`),
    };
  }

  private goalPartOf(): ReturnType<typeof GoalPart.safeParse> {
    const { goalId, threadId, lang, beliefs } = this.options;
    return GoalPart.safeParse({
      schemaVersion: SCHEMA_VERSION,
      goalId,
      ...(threadId ? { threadId } : {}),
      runtimeSubject: Subjects.goalRuntime(goalId),
      interactSubject: Subjects.goalInteract(goalId),
      ...(lang ? { lang } : {}),
      ...(beliefs ? { beliefs: [...beliefs] } : {}),
    });
  }

  private outcome(
    plan: OperationPlan,
    started: number,
    ended: Ended | { failed: ErrorEnvelope },
  ): OperationOutcome {
    const end = 'failed' in ended ? failed(ended.failed) : ended;
    return {
      operation: plan,
      status: end.status,
      result: end.result,
      errorMessage: end.errorMessage,
      ...(end.errorCode === undefined ? {} : { errorCode: end.errorCode }),
      startedAt: isoTime(started),
      completedAt: isoTime(this.now()),
    };
  }
}

/**
 * The last epoch milliseconds formatted, with their ISO forms: calls that start or end in the same millisecond share
 * them. Two slots, because each outcome formats its start and then its end: with one, calls ending together (a reply
 * batch) alternate between those two instants and format every time.
 */
let recentIso = { ms: Number.NaN, iso: '' };
let olderIso = recentIso;
function isoTime(ms: number): string {
  if (ms === recentIso.ms) return recentIso.iso;
  if (ms === olderIso.ms) return olderIso.iso;
  olderIso = recentIso;
  recentIso = { ms, iso: new Date(ms).toISOString() };
  return recentIso.iso;
}

/** The release of a call that names no resource: it entered no lane (and did not wait a turn to find that out). */
const noLane = (): void => undefined;

function failed(error: ErrorEnvelope): Ended {
  return { status: 'failed', result: null, errorMessage: error.message, errorCode: error.code, error };
}

function cancelled(error = errorEnvelope('CANCELLED', 'the goal was cancelled')): Ended {
  return { status: 'cancelled', result: null, errorMessage: error.message, errorCode: error.code, error };
}
