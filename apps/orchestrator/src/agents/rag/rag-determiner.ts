// The decisions of a `rag` pursuit: the route (fast path or retrieval), then one retrieval tool call per step as the
// model picks them (native tool calling), then the answer as the resolution. Everything it knows is rebuilt from the
// executed steps, so a resumed pursuit goes on where the checkpoint left it.
import {
  type ActionDeterminer,
  type Decision,
  type DetermineActionInput,
  type OperationOutcome,
  type OperationPlan,
  resolution,
} from '@novelrag/agenturn';
import type { RagPath } from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import { z } from 'zod';
import { ModelCalls } from '../../loop/model-calls';
import type { AgentContext } from '../agent-kind';
import { type RagAnswer, writeAnswer } from './rag-answer';
import { type MemoryView, NO_MEMORY, recall, remember } from './rag-memory';
import type { RagAgentDeps } from './rag-options';
import { type RagState, ragState, stepEvent } from './rag-state';
import { planOfCall, ragToolDefinitions } from './rag-tools';

const Route = z.object({ path: z.enum(['direct', 'retrieve']), reason: z.string().min(1).max(2_000) });
/** The tools' `question` parameter is bounded. */
const MAX_QUESTION_CHARS = 2_000;

/** What the pursuit ended with, for the goal's outcome. */
export interface RagEnding {
  readonly answer: RagAnswer;
  readonly limited: boolean;
}

export class RagDeterminer implements ActionDeterminer {
  private readonly calls: ModelCalls;
  private memory: MemoryView | undefined;
  private path: RagPath | undefined;
  /** Further tool calls of the model's last reply, made one step at a time. */
  private queued: OperationPlan[] = [];
  /** Steps whose results are already traced (the resumed ones were, by the pursuit that ran them). */
  private traced: number;
  ending: RagEnding | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly deps: RagAgentDeps,
  ) {
    this.calls = new ModelCalls(ctx.model, ctx.renderer, ctx.trace, ctx.lang);
    this.traced = ctx.resume.executedSteps.length;
  }

  private get question(): string {
    return this.ctx.goal.description;
  }

  /** The tool-call cap of this goal: below the step budget, so the answer always has a step left to happen in. */
  private get cap(): number {
    return Math.max(0, Math.min(this.deps.maxToolCalls, this.ctx.limits.maxSteps - 1));
  }

  async determineAction(input: DetermineActionInput): Promise<Decision> {
    const steps = input.progress.executedSteps;
    const signal = input.signal ?? this.ctx.signal;
    this.traceSteps(steps);
    this.memory ??= await recall(
      this.deps.memory,
      this.question,
      this.ctx.resume.record.threadId,
      this.ctx.execution,
      signal,
    );
    if (this.path === undefined) {
      this.path = steps.length > 0 || this.ctx.resume.replay ? 'retrieve' : await this.route(signal);
      if (this.path === 'direct') return this.answer('direct', [], false, signal);
    }
    const state = ragState(steps);
    if (steps.length >= this.cap) return this.answer('retrieve', state.documents, true, signal);
    const next = this.queued.shift() ?? (await this.nextCall(state, steps.length, signal));
    return next ?? this.answer('retrieve', state.documents, false, signal);
  }

  private traceSteps(steps: readonly OperationOutcome[]): void {
    steps.forEach((step, i) => {
      const event = i >= this.traced ? stepEvent(step) : undefined;
      if (event) this.ctx.emit({ ...event, step: i });
    });
    this.traced = Math.max(this.traced, steps.length);
  }

  private async route(signal: AbortSignal): Promise<RagPath> {
    const route = await this.calls.structured(
      'rag_route',
      {
        template: 'rag_classify_query',
        directive: contentDirective(this.ctx.lang, this.ctx.beliefs),
        instruction: 'Decide how to handle the message.',
        variables: {
          question: this.question,
          session_summary: this.memory?.summary ?? null,
          memories: this.memory?.memories ?? [],
        },
      },
      Route,
      'query_route',
      signal,
    );
    this.ctx.emit({ kind: 'rag.route', path: route.path, reason: route.reason, step: 0 });
    return route.path;
  }

  /** Asks the model for the next retrieval calls; null when it is done (no usable call). */
  private async nextCall(state: RagState, made: number, signal: AbortSignal): Promise<OperationPlan | null> {
    const definitions = ragToolDefinitions(this.ctx.tools);
    if (definitions.length === 0) return null;
    const messages = this.calls.messages({
      template: 'rag_agent',
      directive: contentDirective(this.ctx.lang, this.ctx.beliefs),
      instruction: 'Call the next tool, or reply READY when the documents held are enough.',
      variables: {
        question: this.question,
        session_summary: this.memory?.summary ?? null,
        memories: this.memory?.memories ?? [],
        steps: state.steps,
        documents: state.documents,
        calls_made: made,
        max_calls: this.cap,
        has_memory_tool: definitions.some((d) => d.name === 'memory_retrieve'),
      },
    });
    const reply = await this.calls.callTools('rag_tools', messages, definitions, signal, 'auto');
    const question = this.question.slice(0, MAX_QUESTION_CHARS);
    const plans = reply.toolCalls
      .map((call) => planOfCall(call, definitions, state, question, reply.content))
      .filter((p): p is OperationPlan => p !== null);
    this.queued = plans.slice(1, Math.max(1, this.cap - made));
    return plans[0] ?? null;
  }

  private async answer(
    path: RagPath,
    documents: RagState['documents'],
    limited: boolean,
    signal: AbortSignal,
  ): Promise<Decision> {
    const memory = this.memory ?? NO_MEMORY;
    const answer = await writeAnswer({
      calls: this.calls,
      sink: this.deps.deltas,
      goalId: this.ctx.resume.record.goalId,
      attempt: this.ctx.resume.record.attempts ?? 1,
      lang: this.ctx.lang,
      beliefs: this.ctx.beliefs,
      question: this.question,
      documents,
      memory,
      policy: this.deps.citationPolicy,
      signal,
    });
    const toolCalls = this.traced;
    this.ctx.emit({
      kind: 'rag.answer',
      path,
      answer: answer.text,
      citations: answer.citations,
      unverified: answer.unverified,
      policy: this.deps.citationPolicy,
      toolCalls,
      limited,
      step: toolCalls,
    });
    await remember({
      memory: this.deps.memory,
      calls: this.calls,
      lang: this.ctx.lang,
      beliefs: this.ctx.beliefs,
      threadId: this.ctx.resume.record.threadId,
      goalId: this.ctx.resume.record.goalId,
      question: this.question,
      answer: answer.text,
      previous: memory,
      log: this.ctx.execution,
      signal,
    });
    this.ending = { answer, limited };
    const reason = limited
      ? `Answered with what ${toolCalls} tool call(s) found: the cap of ${this.cap} calls was reached`
      : path === 'direct'
        ? 'Answered from the conversation, without retrieval'
        : `Answered from ${documents.length} document(s) after ${toolCalls} tool call(s)`;
    return resolution('success', answer.text, reason);
  }
}
