import type { ContextLogger, QueuedTrace, TraceDraft, TracePublisher } from '@novelrag/bus';
import {
  type ActionDecision,
  type DiscoveryPlan,
  FINAL_TRACE_KINDS,
  type PursuitAssessment,
  type RefinementDecision,
  type RefinementPlan,
  type TokenUsage,
  describeIssues,
} from '@novelrag/contracts';
import { activeContext } from '@novelrag/telemetry';
import { z } from 'zod';
import type { ContextStats, LlmCallInfo, LoopObserver } from '../loop';

/** Events published together at most (their acks awaited together). */
const MAX_LOT = 32;

function isFinal(queued: QueuedTrace | undefined): boolean {
  return queued !== undefined && FINAL_TRACE_KINDS.includes(queued.draft.kind);
}

/**
 * How many queued events the next lot takes: at most MAX_LOT, and a final event always alone, after everything emitted
 * before it is stored. A lot whose seq another publisher took is stored again after itself (see
 * `TracePublisher.publishAll`): a final event inside it would land twice, and before the events re-stored after it
 * (which an SSE client, stopping at the first final event, would never get).
 */
function lotLength(queue: readonly QueuedTrace[]): number {
  const final = queue.findIndex(isFinal);
  if (final === 0) return 1;
  return Math.min(MAX_LOT, final < 0 ? queue.length : final);
}

/** The length the reason of a replaced final event keeps of the contract's complaint. */
const MAX_COMPLAINT_CHARS = 2_000;

/**
 * A final event that failed the contract, reduced to what a follower needs to stop waiting: the same kind and terminal
 * status, its steps, tokens and time, and a reason that says why the rest is missing (the goal record holds the full
 * outcome: it was validated when it was stored, before the event was built). Undefined for any other event: a
 * non-final event that failed is only logged (readers would have skipped it; nobody waits for it).
 */
export function contractSafeFinal(draft: TraceDraft, error: z.ZodError): TraceDraft | undefined {
  if (!FINAL_TRACE_KINDS.includes(draft.kind) || !('outcome' in draft)) return undefined;
  const { outcome } = draft;
  const complaint = describeIssues(error).slice(0, MAX_COMPLAINT_CHARS);
  return {
    kind: draft.kind,
    goalId: draft.goalId,
    threadId: draft.threadId,
    ...(draft.step === undefined ? {} : { step: draft.step }),
    outcome: {
      status: outcome.status,
      response: '',
      reason: `the goal's final trace event did not pass the contract (${complaint}); its outcome is in the goal record`,
      steps: outcome.steps,
      tokens: outcome.tokens,
      finishedAt: outcome.finishedAt,
    },
  } as TraceDraft;
}

type Distribute<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A trace event as a goal's code writes it: goal, thread and step are filled in here. */
export type GoalTraceDraft = Distribute<TraceDraft, 'goalId' | 'threadId' | 'step'> & { step?: number };

/**
 * The trace of one goal: events are numbered and stored in the order `emit` was called. What was emitted while the
 * previous lot was being stored is published as the next lot (at most MAX_LOT events, sent at once, acks awaited
 * together: `TracePublisher.publishAll`), so a burst of events costs one round trip, not one each; a final event is a
 * lot of its own (`lotLength`). Each event keeps the trace context it was emitted in. `emit` never throws and never
 * blocks; `flush` waits until everything emitted so far is stored. A failed publish is logged and skipped: losing a
 * trace event must not stop a pursuit (the seq gap shows it).
 *
 * It is also the loop's observer: every callback becomes the trace event of the same name, and LLM calls are summed
 * into the goal's token usage.
 */
export class GoalTrace implements LoopObserver {
  /** The step the next loop events belong to (the number of steps executed so far). */
  step = 0;
  private readonly queue: QueuedTrace[] = [];
  private pumping: Promise<void> | undefined;
  private tokens: TokenUsage;
  /** Set by the final event or `close`: nothing more is emitted. */
  private closed = false;
  /** Set once a final event that failed the contract was replaced by its bare form (`contractSafeFinal`). */
  private finalReplaced = false;

  constructor(
    private readonly publisher: TracePublisher,
    readonly goalId: string,
    readonly threadId: string,
    private readonly log: ContextLogger,
    initialUsage: TokenUsage,
    private readonly onUsage: (usage: TokenUsage) => void = () => undefined,
  ) {
    this.tokens = { ...initialUsage };
  }

  get usage(): TokenUsage {
    return { ...this.tokens };
  }

  /**
   * Queues `draft`. Once a final event was emitted, or the trace was closed (the pursuit lost its fence), nothing more is
   * stored: a late runtime message, question, tool reply or interaction timer is logged at debug and dropped, so the
   * final event stays the last of the goal's trace.
   */
  emit(draft: GoalTraceDraft): void {
    if (this.closed) {
      this.log.debug('trace event after the end dropped', { goalId: this.goalId, kind: draft.kind });
      return;
    }
    if (FINAL_TRACE_KINDS.includes(draft.kind)) this.closed = true;
    const event = { ...draft, goalId: this.goalId, threadId: this.threadId } as TraceDraft;
    this.queue.push({ draft: event, context: activeContext() });
    this.pumping ??= this.pump();
  }

  /**
   * Ends the trace without a final event: for a pursuit that lost its fence (another pursuit owns the goal and its trace
   * now). What is queued and not yet sent is dropped, and later events are too.
   */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
  }

  /** Waits (bounded by the publisher's own timeouts) until every event emitted so far is stored. */
  flush(): Promise<void> {
    return this.pumping ?? Promise.resolve();
  }

  /** Publishes the queue lot by lot until it is empty. */
  private async pump(): Promise<void> {
    // The events emitted before the event loop moves on join the first lot: with a model's reply, its `llm.call` and
    // what the phase makes of it (assessment, plan, decision) are a few promise steps apart, one lot rather than two.
    // A final event first in line goes at once: it is a lot of its own (`lotLength`), and what readers wait for.
    if (isFinal(this.queue[0])) await Promise.resolve();
    else await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const lot = this.queue.splice(0, lotLength(this.queue));
      const results = await this.publisher
        .publishAll(lot)
        .catch((err: unknown) =>
          lot.map((): PromiseSettledResult<unknown> => ({ status: 'rejected', reason: err })),
        );
      results.forEach((result, i) => {
        if (result.status === 'fulfilled') return;
        const err: unknown = result.reason;
        this.log.warn('trace event not published', {
          goalId: this.goalId,
          kind: lot[i]?.draft.kind,
          error: err instanceof Error ? err.message : String(err),
        });
        const item = lot[i];
        if (!item || !(err instanceof z.ZodError) || this.finalReplaced) return;
        const replacement = contractSafeFinal(item.draft, err);
        if (!replacement) return;
        this.finalReplaced = true;
        this.queue.unshift({ draft: replacement, context: item.context });
      });
    }
    this.pumping = undefined;
  }

  /** Loop events carry the current step. */
  private loop(draft: GoalTraceDraft): void {
    this.emit({ ...draft, step: this.step });
  }

  llmCall(info: LlmCallInfo): void {
    this.tokens = {
      promptTokens: this.tokens.promptTokens + info.promptTokens,
      completionTokens: this.tokens.completionTokens + info.completionTokens,
      totalTokens: this.tokens.totalTokens + info.promptTokens + info.completionTokens,
    };
    this.loop({
      kind: 'llm.call',
      purpose: info.purpose || 'unknown',
      model: info.model || 'unknown',
      promptTokens: Math.max(0, Math.round(info.promptTokens)),
      completionTokens: Math.max(0, Math.round(info.completionTokens)),
      latencyMs: Math.max(0, Math.round(info.latencyMs)),
      attempts: Math.max(1, Math.round(info.attempts)),
      ok: info.ok,
      ...(info.error ? { error: info.error } : {}),
      ...(info.invocationId ? { invocationId: info.invocationId } : {}),
    });
    this.onUsage(this.usage);
  }

  assessment(assessment: PursuitAssessment, iteration?: number): void {
    this.loop({ kind: 'assessment', assessment, ...(iteration === undefined ? {} : { iteration }) });
  }

  discoveryPlan(iteration: number, plan: DiscoveryPlan): void {
    this.loop({ kind: 'discovery.plan', iteration, plan });
  }

  refinementPlan(iteration: number, plan: RefinementPlan): void {
    this.loop({ kind: 'refinement.plan', iteration, plan });
  }

  contextUpdated(iteration: number, stats: ContextStats): void {
    this.loop({ kind: 'context.updated', iteration, ...stats, expandedTools: [...stats.expandedTools] });
  }

  decision(iteration: number, decision: ActionDecision): void {
    this.loop({ kind: 'decision', iteration, decision });
  }

  verdict(iteration: number, verdict: RefinementDecision): void {
    this.loop({ kind: 'analysis.verdict', iteration, verdict });
  }
}
