import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import {
  BusHeaders,
  type CancelRequest,
  type JsonObject,
  SCHEMA_VERSION,
  Subjects,
  type ToolInvocation,
  ToolOutput,
  describeIssues,
} from '@novelrag/contracts';

/** One answer of the tool, as received (what the checks judge). */
export interface Answer {
  readonly output?: ToolOutput;
  /** Why the answer is no `ToolOutput` (not JSON, outside the contract, no answer at all). */
  readonly problem?: string;
  /** The micro error headers, when present. */
  readonly serviceError?: string;
  readonly serviceErrorCode?: string;
  readonly bytes: number;
}

/** Sends invocations of one tool as the orchestrator would, on a goal of the checker's own. */
export class ToolProbe {
  readonly goalId = `check-${randomUUID().slice(0, 8)}`;
  private calls = 0;
  /** Every answer received, for the checks that judge them all (headers, caps). */
  readonly answers: Answer[] = [];

  constructor(
    private readonly nc: NatsConnection,
    readonly tool: string,
    /** Bound on one call's answer. */
    readonly timeoutMs: number,
  ) {}

  /** A well-formed invocation (a fresh invocation id unless given) with these params. */
  invocation(params: JsonObject, overrides: Partial<ToolInvocation> = {}): ToolInvocation {
    this.calls += 1;
    return {
      schemaVersion: SCHEMA_VERSION,
      invocationId: `${this.goalId}-i${this.calls}`,
      goalId: this.goalId,
      step: this.calls,
      tool: this.tool,
      params,
      deadline: Date.now() + this.timeoutMs,
      runtimeSubject: Subjects.goalRuntime(this.goalId),
      interactSubject: Subjects.goalInteract(this.goalId),
      attempt: 1,
      ...overrides,
    };
  }

  /** Sends a body (an invocation or anything else) and reads the answer; never throws. */
  async send(body: unknown): Promise<Answer> {
    let msg: Msg;
    try {
      msg = await this.nc.request(Subjects.toolInvoke(this.tool), JSON.stringify(body), {
        timeout: this.timeoutMs,
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return this.keep({ problem: `no answer within ${this.timeoutMs} ms (${reason})`, bytes: 0 });
    }
    return this.keep(readAnswer(msg));
  }

  /** Publishes the goal's cancel event (as the gateway does). */
  cancel(): void {
    const event: CancelRequest = {
      schemaVersion: SCHEMA_VERSION,
      goalId: this.goalId,
      reason: 'conformance check',
      at: new Date().toISOString(),
    };
    this.nc.publish(Subjects.goalCancel(this.goalId), JSON.stringify(event));
  }

  /**
   * Sends an invocation and publishes the cancel event every `everyMs` until the answer comes: the tool may subscribe
   * to the cancel subject only once the call has started, so one early event could be missed.
   */
  async sendCancelled(invocation: ToolInvocation, everyMs = 200): Promise<Answer> {
    const answer = this.send(invocation);
    await this.nc.flush();
    const timer = setInterval(() => this.cancel(), everyMs);
    this.cancel();
    try {
      return await answer;
    } finally {
      clearInterval(timer);
    }
  }

  private keep(answer: Answer): Answer {
    this.answers.push(answer);
    return answer;
  }
}

function readAnswer(msg: Msg): Answer {
  const headers = {
    ...(msg.headers?.get(BusHeaders.serviceError)
      ? { serviceError: msg.headers.get(BusHeaders.serviceError) }
      : {}),
    ...(msg.headers?.get(BusHeaders.serviceErrorCode)
      ? { serviceErrorCode: msg.headers.get(BusHeaders.serviceErrorCode) }
      : {}),
  };
  const bytes = msg.data.length;
  let body: unknown;
  try {
    body = msg.json();
  } catch {
    return { problem: 'the answer is not JSON', bytes, ...headers };
  }
  const parsed = ToolOutput.safeParse(body);
  if (!parsed.success)
    return { problem: `the answer is no ToolOutput: ${describeIssues(parsed.error)}`, bytes, ...headers };
  return { output: parsed.data, bytes, ...headers };
}

/** `result (12 chars)` / `error TOOL_FAILED: message` / the problem. */
export function describeAnswer(answer: Answer): string {
  if (!answer.output) return answer.problem ?? 'no answer';
  const out = answer.output;
  return out.type === 'result'
    ? `result ${JSON.stringify(out.result.length > 40 ? `${out.result.slice(0, 40)}…` : out.result)} (${out.result.length} characters)`
    : `error ${out.error.code}: ${out.error.message.slice(0, 160)}`;
}

/** Whether two answers say the same (same result text, or the same error code). */
export function sameAnswer(a: Answer, b: Answer): boolean {
  if (!a.output || !b.output || a.output.type !== b.output.type) return false;
  if (a.output.type === 'result' && b.output.type === 'result') return a.output.result === b.output.result;
  return (
    a.output.type === 'error' && b.output.type === 'error' && a.output.error.code === b.output.error.code
  );
}
