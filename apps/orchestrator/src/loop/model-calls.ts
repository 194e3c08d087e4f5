import {
  CancelledError,
  type ChatMessage,
  type ChatModel,
  type ChatResult,
  type PromptRenderer,
  type ToolCallReply,
  type ToolChoice,
  type ToolDefinition,
  isAgenturnError,
  spentUsageOf,
  toErrorInfo,
} from '@novelrag/agenturn';
import { buildMessages } from '@novelrag/llm';
import type { z } from 'zod';
import type { LlmCallInfo, LoopObserver } from './ports';

/** The trace purposes of the loop's model calls (`llm.call` events). */
export type LoopPurpose =
  | 'pursuit_assessment'
  | 'context_discovery'
  | 'context_relevance'
  | 'action_decision'
  | 'refinement_analysis'
  | 'goal_translation'
  | 'goal_decider'
  | 'assistant_think'
  | 'assistant_tool_input'
  | 'assistant_output'
  | 'assistant_followup'
  | 'rag_route'
  | 'rag_tools'
  | 'rag_answer'
  | 'rag_memory';

/**
 * The purpose passed to the ChatModel, which picks the model per purpose (`NOVELRAG_MODELS=decide=gpt-4o,...`): short
 * names, kept apart from the trace purposes so that operators configure models with the documented keys.
 */
const MODEL_PURPOSE: Readonly<Record<LoopPurpose, string>> = {
  pursuit_assessment: 'assess',
  context_discovery: 'discover',
  context_relevance: 'relevance',
  action_decision: 'decide',
  refinement_analysis: 'analyze',
  goal_translation: 'translate',
  goal_decider: 'goal_decider',
  assistant_think: 'think',
  assistant_tool_input: 'tool_input',
  assistant_output: 'output',
  assistant_followup: 'output',
  rag_route: 'classify',
  rag_tools: 'rag_agent',
  rag_answer: 'answer',
  rag_memory: 'memory',
};

export interface PromptSpec {
  readonly template: string;
  readonly variables: Readonly<Record<string, unknown>>;
  /** The language directive (content or interaction). */
  readonly directive: string;
  /** The short fixed user turn. */
  readonly instruction: string;
}

/** Renders a phase's template into messages and calls the model, reporting every call (ok or not) to the observer. */
export class ModelCalls {
  constructor(
    private readonly model: ChatModel,
    private readonly renderer: PromptRenderer,
    private readonly observer: Pick<LoopObserver, 'llmCall'> | undefined,
    private readonly lang: string | undefined,
  ) {}

  messages(prompt: PromptSpec): ChatMessage[] {
    const rendered = this.renderer.render(prompt.template, prompt.variables, this.lang);
    return buildMessages(prompt.directive, rendered, prompt.instruction);
  }

  async structured<T>(
    purpose: LoopPurpose,
    prompt: PromptSpec,
    schema: z.ZodType<T>,
    schemaName: string,
    signal?: AbortSignal,
  ): Promise<T> {
    const messages = this.messages(prompt);
    return this.run(purpose, signal, () =>
      this.model.structured({
        messages,
        schema,
        schemaName,
        purpose: MODEL_PURPOSE[purpose],
        ...(signal ? { signal } : {}),
      }),
    );
  }

  async callTools(
    purpose: LoopPurpose,
    messages: readonly ChatMessage[],
    tools: readonly ToolDefinition[],
    signal?: AbortSignal,
    toolChoice: ToolChoice = 'required',
  ): Promise<ToolCallReply> {
    return this.run(purpose, signal, () =>
      this.model.callTools({
        messages,
        tools,
        toolChoice,
        purpose: MODEL_PURPOSE[purpose],
        ...(signal ? { signal } : {}),
      }),
    );
  }

  /**
   * A streamed text answer: `onText` gets each piece as it arrives; resolves with the whole text once the stream ended.
   * Reported like every call (its usage when it completed).
   */
  async streamText(
    purpose: LoopPurpose,
    messages: readonly ChatMessage[],
    onText: (piece: string) => void,
    signal?: AbortSignal,
  ): Promise<string> {
    const reply = await this.run(purpose, signal, async () => {
      const stream = this.model.stream({
        messages,
        purpose: MODEL_PURPOSE[purpose],
        ...(signal ? { signal } : {}),
      });
      for await (const piece of stream) onText(piece);
      return stream.result;
    });
    return reply.content ?? '';
  }

  private async run<T>(
    purpose: LoopPurpose,
    signal: AbortSignal | undefined,
    call: () => Promise<ChatResult<T>>,
  ): Promise<T> {
    throwIfAborted(signal);
    const started = Date.now();
    try {
      const result = await call();
      this.report({
        purpose,
        model: result.model,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        latencyMs: Math.max(0, Math.round(result.latencyMs)),
        attempts: Math.max(1, result.attempts),
        ok: true,
      });
      return result.value;
    } catch (err) {
      const info = toErrorInfo(err);
      const spent = spentUsageOf(err); // a failed call may have cost tokens: they count against the budget too
      this.report({
        purpose,
        model: 'unknown',
        promptTokens: spent?.promptTokens ?? 0,
        completionTokens: spent?.completionTokens ?? 0,
        latencyMs: Math.max(0, Date.now() - started),
        attempts: attemptsOf(err),
        ok: false,
        error: { code: info.code, message: info.message, retryable: info.retryable },
      });
      if (signal?.aborted) throw asCancelled(err, signal);
      throw err;
    }
  }

  private report(info: LlmCallInfo): void {
    try {
      this.observer?.llmCall(info);
    } catch {
      // An observer must not break the loop (its contract says it never throws; this keeps that true).
    }
  }
}

function attemptsOf(err: unknown): number {
  if (isAgenturnError(err, 'MODEL_OUTPUT_INVALID')) {
    const attempts = (err.details as { attempts?: unknown } | undefined)?.attempts;
    if (typeof attempts === 'number' && attempts >= 1) return attempts;
  }
  return 1;
}

/** Rejects with `CancelledError` when the goal's signal has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('goal cancelled', { cause: signal.reason });
}

/** Any error raised while the signal is aborted becomes a `CancelledError` (bus and model errors alike). */
export function asCancelled(err: unknown, signal: AbortSignal): CancelledError {
  if (err instanceof CancelledError) return err;
  return new CancelledError('goal cancelled', { cause: signal.reason ?? err });
}

/** Runs `work`; when the signal aborts meanwhile (or already has), rejects with `CancelledError`. */
export async function cancellable<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  throwIfAborted(signal);
  try {
    return await work();
  } catch (err) {
    if (signal?.aborted) throw asCancelled(err, signal);
    throw err;
  }
}

/** True for output that stayed invalid after the adapter's retries: the loop degrades instead of failing the goal. */
export function isModelOutputError(err: unknown): boolean {
  return isAgenturnError(err, 'MODEL_OUTPUT_INVALID');
}
