import type { NatsConnection } from '@nats-io/transport-node';
import { AgenturnError, CancelledError, type InteractionOptions } from '@novelrag/agenturn';
import {
  type InteractionReply,
  InteractionReply as InteractionReplySchema,
  type InteractionRequest,
  MAX_INTERACTION_TIMEOUT_MS,
  MAX_TEXT_CHARS,
  type RuntimeEvent,
  SCHEMA_VERSION,
  type ToolInvocation,
  replyOf,
} from '@novelrag/contracts';
import type { ToolContext, ToolModelUsage } from './hosted-tool';
import type { ToolNotes } from './invocation-notes';
import { type AskTiming, askUntilAnswered } from './interaction-ask';
import type { HostLogger } from './logger';

const InteractionReplyEnvelope = replyOf(InteractionReplySchema);
/** Time kept before the tool's own deadline, so the tool can still act on the answer. */
const INTERACTION_MARGIN_MS = 500;
const MIN_INTERACTION_MS = 1_000;

type EventBody =
  | { kind: 'debug' | 'info' | 'warning' | 'error' | 'output'; message: string }
  | ({ kind: 'llm.call' } & ToolModelUsage)
  | { kind: 'progress'; key: string; value: string; description?: string }
  | { kind: 'backlog'; content: Record<string, unknown>; priority?: number };

function clip(text: string, max = MAX_TEXT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The ExecutionContext of one invocation, over NATS: log levels, output, progress and backlog are `RuntimeEvent`s
 * published on the invocation's `runtimeSubject` (fire and forget, never throwing); confirm/request are
 * `InteractionRequest`s on `interactSubject`, kept alive until the orchestrator replies (see `askUntilAnswered`).
 * Without the tool's `timeoutMs` the orchestrator's configured interaction timeout applies. `{timedOut}` (nobody answered
 * in time) means declined; an error reply coded CANCELLED (or the invocation's own cancellation) rejects with
 * `CancelledError`. An orchestrator that is away (nobody listens for longer than the orphan wait, or no reply before
 * the deadline) or an error reply coded UNAVAILABLE (the goal was handed to another orchestrator, which re-sends this
 * invocation) is never a decline: it rejects with a retryable UNAVAILABLE error and calls `onUnavailable`, so the whole
 * call ends as a retryable failure (not recorded) even when the tool catches the error.
 * Model calls the tool reports (`modelCall`) are published as `llm.call` events; once their tokens exceed the
 * invocation's `tokenBudget`, `onBudgetExhausted` ends the call.
 */
export class RemoteExecutionContext implements ToolContext {
  constructor(
    private readonly nc: NatsConnection,
    readonly invocation: ToolInvocation,
    readonly deadline: number,
    private readonly signal: AbortSignal,
    private readonly logger: HostLogger,
    private readonly now: () => number = Date.now,
    private readonly onUnavailable: (message: string) => void = () => undefined,
    private readonly asking: AskTiming = {},
    private readonly onBudgetExhausted: (message: string) => void = () => undefined,
    readonly notes?: ToolNotes,
  ) {}

  /** Tokens of the model calls this invocation reported so far. */
  private tokensUsed = 0;

  debug(message: string): void {
    this.publish({ kind: 'debug', message: clip(message) });
  }
  info(message: string): void {
    this.publish({ kind: 'info', message: clip(message) });
  }
  warning(message: string): void {
    this.publish({ kind: 'warning', message: clip(message) });
  }
  error(message: string): void {
    this.publish({ kind: 'error', message: clip(message) });
  }
  output(message: string): void {
    this.publish({ kind: 'output', message: clip(message) });
  }
  progress(key: string, value: string, description?: string): void {
    this.publish({
      kind: 'progress',
      key: clip(key, 2_000),
      value: clip(value, 10_000),
      ...(description !== undefined ? { description: clip(description, 10_000) } : {}),
    });
  }
  backlog(content: Readonly<Record<string, unknown>>, priority?: number): void {
    const bounded = priority === undefined ? undefined : Math.max(0, Math.min(10, Math.round(priority)));
    this.publish({
      kind: 'backlog',
      content: { ...content },
      ...(bounded !== undefined ? { priority: bounded } : {}),
    });
  }

  modelCall(usage: ToolModelUsage): void {
    const whole = (n: number) => Math.max(0, Math.round(n));
    this.publish({
      kind: 'llm.call',
      purpose: clip(usage.purpose || 'unknown', 200),
      model: clip(usage.model || 'unknown', 200),
      promptTokens: whole(usage.promptTokens),
      completionTokens: whole(usage.completionTokens),
      latencyMs: whole(usage.latencyMs),
      attempts: Math.max(1, whole(usage.attempts)),
      ok: usage.ok,
    });
    this.tokensUsed += whole(usage.promptTokens) + whole(usage.completionTokens);
    const budget = this.invocation.tokenBudget;
    if (budget !== undefined && this.tokensUsed > budget) {
      this.onBudgetExhausted(
        `the tool's model calls used ${this.tokensUsed} tokens, more than the ${budget} the goal had left`,
      );
    }
  }

  async confirm(message: string, options?: InteractionOptions): Promise<boolean> {
    const reply = await this.interact({ kind: 'confirm', message: clip(message) }, options);
    return reply !== null && 'approved' in reply && reply.approved;
  }

  async request(prompt: string, options?: InteractionOptions): Promise<string | null> {
    const reply = await this.interact({ kind: 'request', prompt: clip(prompt) }, options);
    return reply !== null && 'text' in reply ? reply.text : null;
  }

  private publish(body: EventBody): void {
    const { goalId, invocationId, step, runtimeSubject } = this.invocation;
    const event = {
      schemaVersion: SCHEMA_VERSION,
      goalId,
      invocationId,
      step,
      at: new Date(this.now()).toISOString(),
      ...body,
    } as RuntimeEvent;
    try {
      this.nc.publish(runtimeSubject, JSON.stringify(event));
    } catch (err) {
      this.logger.warn('runtime event not published', { invocationId, error: String(err) });
    }
  }

  /**
   * The human's reply, or null when the orchestrator says nobody answered in time (`{timedOut}`), refused the question
   * (other than CANCELLED/UNAVAILABLE) or answered outside the contract. Never null because the orchestrator is away:
   * see `InteractionAsk`.
   */
  private async interact(
    body: { kind: 'confirm'; message: string } | { kind: 'request'; prompt: string },
    options?: InteractionOptions,
  ): Promise<InteractionReply | null> {
    if (this.signal.aborted) throw new CancelledError('the invocation was cancelled');
    const available = this.deadline - this.now() - INTERACTION_MARGIN_MS;
    if (available < MIN_INTERACTION_MS) {
      this.logger.warn('no time left to ask the human; treated as declined', {
        invocationId: this.invocation.invocationId,
      });
      return null;
    }
    const { goalId, invocationId, step, interactSubject } = this.invocation;
    // Without the tool's own timeout the orchestrator applies its configured one (NOVELRAG_INTERACTION_TIMEOUT_MS).
    const timeoutMs =
      options?.timeoutMs === undefined
        ? undefined
        : Math.max(
            MIN_INTERACTION_MS,
            Math.floor(Math.min(options.timeoutMs, available, MAX_INTERACTION_TIMEOUT_MS)),
          );
    const request: InteractionRequest = {
      schemaVersion: SCHEMA_VERSION,
      goalId,
      invocationId,
      step,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...body,
    };
    const outcome = await askUntilAnswered(this.nc, interactSubject, JSON.stringify(request), {
      signal: this.signal,
      until: this.deadline - INTERACTION_MARGIN_MS,
      now: this.now,
      ...this.asking,
    });
    if (outcome.kind === 'orphaned') {
      // Nobody can ask right now. Recording a decline would replay it to the retry: the call is given back instead.
      const message = `the question could not be asked: ${outcome.reason}`;
      this.logger.warn('interaction not delivered; the call is given back', { invocationId });
      this.onUnavailable(message);
      throw new AgenturnError('UNAVAILABLE', message, { fault: 'system', retryable: true });
    }
    const reply = InteractionReplyEnvelope.safeParse(outcome.raw);
    if (!reply.success) {
      this.logger.warn('interaction reply outside the contract; treated as declined', { invocationId });
      return null;
    }
    if (!reply.data.ok) {
      if (reply.data.error.code === 'CANCELLED') throw new CancelledError(reply.data.error.message);
      if (reply.data.error.code === 'UNAVAILABLE') {
        // Not the human's answer: the goal was handed to another orchestrator, which re-sends this invocation.
        const message = `the question could not be asked: ${reply.data.error.message}`;
        this.onUnavailable(message);
        throw new AgenturnError('UNAVAILABLE', message, { fault: 'system', retryable: true });
      }
      this.logger.info('interaction refused; treated as declined', {
        invocationId,
        code: reply.data.error.code,
      });
      return null;
    }
    const data = reply.data.data;
    return 'timedOut' in data ? null : data;
  }
}
