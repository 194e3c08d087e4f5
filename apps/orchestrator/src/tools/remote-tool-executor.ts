import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { mapTransportError, raceAbort } from '@novelrag/bus';
import type { ExecutionContext, OperationOutcome, OperationPlan, ToolExecutor } from '@novelrag/agenturn';
import {
  ERROR_CODE_INFO,
  type ErrorEnvelope,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  ToolOutput,
  type ToolWorkspace,
  describeIssues,
  errorEnvelope,
} from '@novelrag/contracts';
import type { Abandonment, ClaimWatch } from './claim-watch';

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
  /** Attempts for retryable failures (timeout, no responders, busy runner), all with the same invocation id. */
  readonly maxAttempts?: number;
  readonly now?: () => number;
  /** The planner's context when it decided the step (sent so content tools read what the planner read). */
  readonly workspace?: () => ToolWorkspace | undefined;
  /** The goal's beliefs (content directive of tool prompts). */
  readonly beliefs?: readonly string[];
  /** Before each attempt is sent (trace `operation.dispatched`). Must not throw. */
  readonly onDispatch?: (invocation: ToolInvocation, reason: string) => void;
  /** Once per step when it ended (trace `operation.outcome`). Must not throw. */
  readonly onOutcome?: (report: DispatchReport) => void;
  /**
   * Notices a runner that died holding the invocation (its claim in `tool-results` stopped being renewed), so the
   * attempt is abandoned as UNAVAILABLE and retried at once instead of waiting out its timeout.
   */
  readonly claimWatch?: Pick<ClaimWatch, 'lostCall'>;
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

const RETRYABLE = new Set(['TIMEOUT', 'NO_RESPONDERS', 'UNAVAILABLE']);

/**
 * The remote side of the ToolExecutor port: each OperationPlan becomes a `ToolInvocation` request to
 * `novelrag.tools.<tool>.invoke` (any runner of the queue group, or a third-party process). Never throws: failures
 * come back as failed outcomes with a code, fed back to the model. Retryable failures are retried with the SAME
 * invocation id (the runner returns a recorded result instead of running twice), bounded by attempts and deadline.
 */
export class RemoteToolExecutor implements ToolExecutor {
  private step: number;
  private readonly now: () => number;
  private inFlight: ToolInvocation | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: RemoteToolExecutorOptions,
  ) {
    this.step = options.firstStep;
    this.now = options.now ?? Date.now;
  }

  /** The invocation being executed now (interactions from its tool are accepted only while it runs). */
  current(): ToolInvocation | undefined {
    return this.inFlight;
  }

  async execute(plan: OperationPlan, ctx: ExecutionContext, signal?: AbortSignal): Promise<OperationOutcome> {
    try {
      return await this.executeStep(plan, ctx, signal);
    } finally {
      this.inFlight = undefined;
    }
  }

  private async executeStep(
    plan: OperationPlan,
    _ctx: ExecutionContext,
    signal?: AbortSignal,
  ): Promise<OperationOutcome> {
    const step = this.step++;
    const started = this.now();
    const startedAt = new Date(this.now()).toISOString();
    const finish = (
      outcome: Omit<OperationOutcome, 'operation' | 'startedAt' | 'completedAt'>,
    ): OperationOutcome => ({
      operation: plan,
      startedAt,
      completedAt: new Date(this.now()).toISOString(),
      ...outcome,
    });
    let replayed = false;
    const report = (outcome: OperationOutcome, error?: ErrorEnvelope): OperationOutcome => {
      if (invocation) {
        this.options.onOutcome?.({
          invocation,
          outcome,
          ...(error ? { error } : {}),
          durationMs: Math.max(0, this.now() - started),
          replayed,
        });
      }
      return outcome;
    };
    const fail = (error: ErrorEnvelope, status: 'failed' | 'cancelled' = 'failed') =>
      report(finish({ status, result: null, errorMessage: error.message, errorCode: error.code }), error);

    const budget = this.options.timeoutOf?.(plan.tool) ?? this.options.defaultTimeoutMs ?? 120_000;
    const deadline = this.now() + budget;
    let invocation: ToolInvocation | undefined;
    const workspace = this.options.workspace?.();
    try {
      invocation = ToolInvocation.parse({
        schemaVersion: SCHEMA_VERSION,
        invocationId: invocationIdOf(this.options.goalId, step),
        goalId: this.options.goalId,
        ...(this.options.threadId ? { threadId: this.options.threadId } : {}),
        step,
        tool: plan.tool,
        params: plan.parameters,
        deadline,
        runtimeSubject: Subjects.goalRuntime(this.options.goalId),
        interactSubject: Subjects.goalInteract(this.options.goalId),
        ...(this.options.lang ? { lang: this.options.lang } : {}),
        attempt: 1,
        ...(workspace ? { workspace } : {}),
        ...(this.options.beliefs ? { beliefs: [...this.options.beliefs] } : {}),
      });
    } catch (err) {
      const issues = err instanceof Error && 'issues' in err ? describeIssues(err as never) : String(err);
      return fail(errorEnvelope('VALIDATION_FAILED', `invalid tool call: ${issues}`));
    }

    const maxAttempts = this.options.maxAttempts ?? 3;
    const staleClaims = new Set<number>(); // abandoned for; the next runner takes them over
    let last: ErrorEnvelope = errorEnvelope('TIMEOUT', `${plan.tool} did not answer`);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (signal?.aborted) return fail(errorEnvelope('CANCELLED', 'the goal was cancelled'), 'cancelled');
      const remaining = deadline - this.now();
      if (remaining <= 0) break;
      // The budget is shared by the attempts left, so a lost first attempt still leaves time for a retry.
      const attemptTimeout = Math.max(250, Math.floor(remaining / (maxAttempts - attempt + 1)));
      const attemptInvocation = { ...invocation, attempt };
      this.inFlight = attemptInvocation;
      this.options.onDispatch?.(attemptInvocation, plan.reason);
      const output = await this.invokeOnce(
        attemptInvocation,
        Math.min(remaining, attemptTimeout),
        staleClaims,
        signal,
      );
      replayed = output.replayed === true;
      if (output.type === 'result')
        return report(finish({ status: 'success', result: output.result, errorMessage: null }));
      last = output.error;
      if (last.code === 'CANCELLED') return fail(last, 'cancelled');
      if (!RETRYABLE.has(last.code) || !ERROR_CODE_INFO[last.code].retryable) return fail(last);
      await new Promise((r) => setTimeout(r, Math.min(250 * attempt, Math.max(0, deadline - this.now()))));
    }
    return fail(last);
  }

  private async invokeOnce(
    invocation: ToolInvocation,
    timeoutMs: number,
    staleClaims: Set<number>,
    signal?: AbortSignal,
  ): Promise<ToolOutput> {
    const subject = Subjects.toolInvoke(invocation.tool);
    const settled = new AbortController(); // ends the claim watch with the request
    const abandon = new AbortController();
    let lost: Abandonment | undefined;
    const { claimWatch } = this.options;
    if (claimWatch) {
      // Started through a promise so that no failure of the watch, even a synchronous one, reaches the request.
      Promise.resolve()
        .then(() =>
          claimWatch.lostCall(invocation.invocationId, {
            signal: settled.signal,
            ignore: staleClaims,
            tool: invocation.tool,
          }),
        )
        .then((found) => {
          if (!found || settled.signal.aborted) return;
          lost = found;
          abandon.abort();
        })
        .catch(() => undefined);
    }
    const stop = signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal;
    try {
      const request = this.nc.request(subject, JSON.stringify(invocation), { timeout: timeoutMs });
      const msg = await raceAbort(request, stop, () =>
        lost && !signal?.aborted ? new CallLostError(lost) : new AbortedError('aborted'),
      );
      let body: unknown;
      try {
        body = msg.json();
      } catch {
        return {
          type: 'error',
          error: errorEnvelope('TOOL_FAILED', `${invocation.tool} answered with invalid JSON`),
        };
      }
      const parsed = ToolOutput.safeParse(body);
      if (!parsed.success) {
        return {
          type: 'error',
          error: errorEnvelope(
            'TOOL_FAILED',
            `${invocation.tool} answered outside the ToolOutput contract: ${describeIssues(parsed.error)}`,
          ),
        };
      }
      return parsed.data;
    } catch (err) {
      if (err instanceof CallLostError) return { type: 'error', error: lostCallError(err.lost, staleClaims) };
      if (err instanceof AbortedError)
        return { type: 'error', error: errorEnvelope('CANCELLED', 'the goal was cancelled') };
      return { type: 'error', error: mapTransportError(err, subject, timeoutMs).envelope };
    } finally {
      settled.abort();
    }
  }
}

class AbortedError extends Error {}

class CallLostError extends Error {
  constructor(readonly lost: Abandonment) {
    super(`call lost (${lost.kind})`);
  }
}

/**
 * The retryable error of a call given up before its timeout. A stale claim is retried at once with the same invocation
 * id (the next runner takes the claim over; this revision is not judged again); a gone tool as NO_RESPONDERS, which
 * the retry confirms at once unless an instance came back.
 */
function lostCallError(lost: Abandonment, staleClaims: Set<number>): ErrorEnvelope {
  if (lost.kind === 'tool-gone')
    return errorEnvelope('NO_RESPONDERS', `no instance of ${lost.tool} answers any more`, {
      goneSince: new Date(lost.goneSince).toISOString(),
    });
  staleClaims.add(lost.revision);
  return errorEnvelope('UNAVAILABLE', `runner ${lost.runner} stopped renewing its claim`, {
    runner: lost.runner,
    leaseUntil: lost.leaseUntil,
  });
}
