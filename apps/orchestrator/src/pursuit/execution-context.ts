import {
  AgenturnError,
  CancelledError,
  type ExecutionContext,
  type InteractionOptions,
  ValidationError,
} from '@novelrag/agenturn';
import type { ContextLogger } from '@novelrag/bus';
import {
  BacklogAddRequest,
  type ErrorEnvelope,
  type InteractionReply,
  InteractionRequest,
  type JsonObject,
  RuntimeEvent,
  SCHEMA_VERSION,
  type ToolInvocation,
  describeIssues,
} from '@novelrag/contracts';
import type { CallScopedContext } from '../tools/call-messages';
import type { GoalInteractions } from './interactions';
import type { ResourceService } from '@novelrag/resource-client';
import type { GoalTrace } from './trace';

export interface BacklogSink {
  add(content: Readonly<Record<string, unknown>>, priority: number | undefined, goalId: string): void;
}

/**
 * Forwards backlog items to the resource-service through its one backlog write (`ResourceService.backlogAdd`),
 * bounded by the service's timeout, logging failures by code only.
 */
export class ResourceBacklog implements BacklogSink {
  constructor(
    private readonly resources: Pick<ResourceService, 'backlogAdd'>,
    private readonly log: ContextLogger,
  ) {}

  add(content: Readonly<Record<string, unknown>>, priority: number | undefined, goalId: string): void {
    const parsed = BacklogAddRequest.safeParse({
      content: JSON.parse(JSON.stringify(content)) as JsonObject,
      ...(priority === undefined ? {} : { priority }),
    });
    if (!parsed.success) {
      this.log.warn('backlog item dropped', { goalId, code: 'VALIDATION_FAILED' });
      return;
    }
    void this.resources.backlogAdd(parsed.data).catch((err: unknown) =>
      this.log.warn('backlog item not stored', {
        goalId,
        code: (err as { code?: string }).code ?? 'INTERNAL',
      }),
    );
  }
}

/** Where the context of a pursuit sends a running tool's messages and questions. */
export interface GoalRuntime {
  readonly goalId: string;
  readonly trace: GoalTrace;
  readonly backlog: BacklogSink;
  /** The goal's human-in-the-loop (pending interaction, answers from the gateway, expiry). */
  readonly interactions: Pick<GoalInteractions, 'request'>;
  readonly now?: () => number;
}

type EventBody =
  | { kind: 'debug' | 'info' | 'warning' | 'error' | 'output'; message: string }
  | { kind: 'progress'; key: string; value: string; description?: string }
  | { kind: 'backlog'; content: Readonly<Record<string, unknown>>; priority?: number };

/**
 * The ExecutionContext of a pursuit. The goal's own context is the orchestrator's: its lines (the agent's decisions,
 * in the trace already as decisions and model calls) are not written, a backlog item is stored, and a question is
 * refused as CANCELLED (questions are only a running tool's). The tool executor gives each call its own view
 * (`forCall`), to which it routes what that call's tool says and asks: log lines, output and progress are traced as
 * `runtime` events of that call, a backlog item is traced and stored by the resource-service, and confirm/request
 * become the goal's pending interaction for that call (status `waiting_for_input`, answered through the gateway,
 * bounded by the tool's, the call's and the goal's deadlines). Calls running at once each have their own view.
 */
export class GoalExecutionContext implements CallScopedContext {
  private readonly now: () => number;

  constructor(
    private readonly runtime: GoalRuntime,
    private readonly call?: ToolInvocation,
  ) {
    this.now = runtime.now ?? Date.now;
  }

  /** The context of one tool call: what it says and asks is attributed to `invocation`. */
  forCall(invocation: ToolInvocation): ExecutionContext {
    return new GoalExecutionContext(this.runtime, invocation);
  }

  debug(message: string): void {
    this.event({ kind: 'debug', message });
  }
  info(message: string): void {
    this.event({ kind: 'info', message });
  }
  warning(message: string): void {
    this.event({ kind: 'warning', message });
  }
  error(message: string): void {
    this.event({ kind: 'error', message });
  }
  output(message: string): void {
    this.event({ kind: 'output', message });
  }
  progress(key: string, value: string, description?: string): void {
    this.event({ kind: 'progress', key, value, ...(description === undefined ? {} : { description }) });
  }
  backlog(content: Readonly<Record<string, unknown>>, priority?: number): void {
    if (this.call) this.event({ kind: 'backlog', content, ...(priority === undefined ? {} : { priority }) });
    else this.runtime.backlog.add(content, priority, this.runtime.goalId);
  }

  async confirm(message: string, options: InteractionOptions = {}): Promise<boolean> {
    const reply = await this.ask({ kind: 'confirm', message }, options);
    return reply !== null && 'approved' in reply && reply.approved;
  }

  async request(prompt: string, options: InteractionOptions = {}): Promise<string | null> {
    const reply = await this.ask({ kind: 'request', prompt }, options);
    return reply !== null && 'text' in reply ? reply.text : null;
  }

  /** The human's reply; null when nobody answered in time (after `onTimeout`). Rejects with the refusal's code. */
  private async ask(
    body: { kind: 'confirm'; message: string } | { kind: 'request'; prompt: string },
    options: InteractionOptions,
  ): Promise<InteractionReply | null> {
    const { call } = this;
    if (!call) throw new CancelledError('that invocation is no longer running');
    const request = InteractionRequest.safeParse({
      schemaVersion: SCHEMA_VERSION,
      goalId: this.runtime.goalId,
      invocationId: call.invocationId,
      step: call.step,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...body,
    });
    if (!request.success) throw new ValidationError(`invalid interaction: ${describeIssues(request.error)}`);
    const reply = await this.runtime.interactions.request(request.data);
    if (!reply.ok) throw refusal(reply.error);
    if ('timedOut' in reply.data) {
      options.onTimeout?.();
      return null;
    }
    return reply.data;
  }

  /** A running tool's event: traced as `runtime` (a backlog item also stored); dropped when no call runs. */
  private event(body: EventBody): void {
    const { call } = this;
    if (!call) return;
    const event = RuntimeEvent.safeParse({
      schemaVersion: SCHEMA_VERSION,
      goalId: this.runtime.goalId,
      invocationId: call.invocationId,
      step: call.step,
      at: new Date(this.now()).toISOString(),
      ...body,
    });
    if (!event.success) return; // outside the contract (the tool side clips): nothing to trace
    this.runtime.trace.emit({ kind: 'runtime', event: event.data, step: event.data.step });
    if (event.data.kind === 'backlog')
      this.runtime.backlog.add(event.data.content, event.data.priority, this.runtime.goalId);
  }
}

/** A refused question as the error the asking tool gets (CANCELLED as a CancelledError, others by their code). */
function refusal(error: ErrorEnvelope): Error {
  if (error.code === 'CANCELLED') return new CancelledError(error.message);
  return new AgenturnError(error.code, error.message, { fault: 'system', retryable: error.retryable });
}
