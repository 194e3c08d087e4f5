import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { mapTransportError } from '@novelrag/bus';
import type { ExecutionContext, OperationOutcome, OperationPlan, ToolExecutor } from '@novelrag/agenturn';
import {
  ERROR_CODE_INFO,
  type ErrorEnvelope,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  ToolOutput,
  describeIssues,
  errorEnvelope,
} from '@novelrag/contracts';

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

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: RemoteToolExecutorOptions,
  ) {
    this.step = options.firstStep;
    this.now = options.now ?? Date.now;
  }

  async execute(
    plan: OperationPlan,
    _ctx: ExecutionContext,
    signal?: AbortSignal,
  ): Promise<OperationOutcome> {
    const step = this.step++;
    const startedAt = new Date(this.now()).toISOString();
    const finish = (
      outcome: Omit<OperationOutcome, 'operation' | 'startedAt' | 'completedAt'>,
    ): OperationOutcome => ({
      operation: plan,
      startedAt,
      completedAt: new Date(this.now()).toISOString(),
      ...outcome,
    });
    const fail = (error: ErrorEnvelope, status: 'failed' | 'cancelled' = 'failed') =>
      finish({ status, result: null, errorMessage: error.message, errorCode: error.code });

    const budget = this.options.timeoutOf?.(plan.tool) ?? this.options.defaultTimeoutMs ?? 120_000;
    const deadline = this.now() + budget;
    let invocation: ToolInvocation;
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
      });
    } catch (err) {
      const issues = err instanceof Error && 'issues' in err ? describeIssues(err as never) : String(err);
      return fail(errorEnvelope('VALIDATION_FAILED', `invalid tool call: ${issues}`));
    }

    const maxAttempts = this.options.maxAttempts ?? 3;
    let last: ErrorEnvelope = errorEnvelope('TIMEOUT', `${plan.tool} did not answer`);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (signal?.aborted) return fail(errorEnvelope('CANCELLED', 'the goal was cancelled'), 'cancelled');
      const remaining = deadline - this.now();
      if (remaining <= 0) break;
      // The budget is shared by the attempts left, so a lost first attempt still leaves time for a retry.
      const attemptTimeout = Math.max(250, Math.floor(remaining / (maxAttempts - attempt + 1)));
      const output = await this.invokeOnce(
        { ...invocation, attempt },
        Math.min(remaining, attemptTimeout),
        signal,
      );
      if (output.type === 'result')
        return finish({ status: 'success', result: output.result, errorMessage: null });
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
    signal?: AbortSignal,
  ): Promise<ToolOutput> {
    const subject = Subjects.toolInvoke(invocation.tool);
    try {
      const request = this.nc.request(subject, JSON.stringify(invocation), { timeout: timeoutMs });
      const msg = await (signal ? raceAbort(request, signal) : request);
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
      if (err instanceof AbortedError)
        return { type: 'error', error: errorEnvelope('CANCELLED', 'the goal was cancelled') };
      return { type: 'error', error: mapTransportError(err, subject, timeoutMs).envelope };
    }
  }
}

class AbortedError extends Error {}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedError('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
