import {
  AgenturnError,
  type ChatUsage,
  ModelUnavailableError,
  type PushText,
  withSpentUsage,
} from '@novelrag/agenturn';
import { APIError, type OpenAI } from 'openai';
import { estimateTokens, fromProviderUsage } from './usage';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';

interface ToolCallParts {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Folds `chat.completion.chunk`s into the `chat.completion` a non-streamed request would have answered, so one
 * interpretation (validation, feedback for retries) serves both. Tool-call pieces are joined by their index; the
 * function name comes whole (as the SDK's own stream helper assumes); usage arrives on the last chunk.
 */
export class ChunkAccumulator {
  private content = '';
  private refusal = '';
  private readonly toolCalls = new Map<number, ToolCallParts>();
  private usage: ChatCompletion['usage'];
  private model = '';
  private id = '';
  private finishReason: ChatCompletion['choices'][number]['finish_reason'] | null = null;

  /** Whether the answer's end (a finish reason) arrived; a stream that ends without one was cut short. */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** Adds one chunk and returns the text it adds to the answer (may be empty). */
  add(chunk: ChatCompletionChunk): string {
    if (chunk.model) this.model = chunk.model;
    if (chunk.id) this.id = chunk.id;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return '';
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (delta.refusal) this.refusal += delta.refusal;
    for (const call of delta.tool_calls ?? []) {
      const parts = this.toolCalls.get(call.index) ?? { id: '', name: '', arguments: '' };
      if (call.id) parts.id = call.id;
      if (call.function?.name) parts.name = call.function.name;
      if (call.function?.arguments) parts.arguments += call.function.arguments;
      this.toolCalls.set(call.index, parts);
    }
    const text = delta.content ?? '';
    this.content += text;
    return text;
  }

  /**
   * Usage estimated from `prompt` and the answer, for a stream that ended without any (servers that ignore
   * `stream_options.include_usage`): without it the answer would count for nothing against a token budget.
   */
  estimateUsageIfMissing(prompt: string): void {
    if (this.usage) return;
    const answer = [
      this.content,
      this.refusal,
      ...[...this.toolCalls.values()].map((c) => c.name + c.arguments),
    ];
    const promptTokens = estimateTokens(prompt);
    const completionTokens = estimateTokens(answer.join(''));
    this.usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
  }

  /** What the answer so far cost (the provider's usage, or an estimate from `prompt` and what arrived). */
  spentSoFar(prompt: string): ChatUsage {
    this.estimateUsageIfMissing(prompt);
    return fromProviderUsage(this.usage);
  }

  completion(): ChatCompletion {
    const toolCalls: ChatCompletionMessageFunctionToolCall[] = [...this.toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, parts]) => ({
        id: parts.id || `call_${index}`,
        type: 'function',
        function: { name: parts.name, arguments: parts.arguments },
      }));
    return {
      id: this.id,
      object: 'chat.completion',
      created: 0,
      model: this.model,
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: this.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
          message: {
            role: 'assistant',
            content: this.content === '' ? null : this.content,
            refusal: this.refusal === '' ? null : this.refusal,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
        },
      ],
      ...(this.usage ? { usage: this.usage } : {}),
    };
  }
}

/**
 * One streamed request: text pieces go to `push` as they arrive, and the folded completion is returned. Usage is
 * asked for (`stream_options.include_usage`). A body that breaks off after the answer began is a retryable
 * `MODEL_UNAVAILABLE`; other failures (abort, deadline, HTTP status, an error event) are left to the caller's mapping.
 */
export async function streamCompletion(
  client: OpenAI,
  params: ChatCompletionCreateParamsNonStreaming,
  push: PushText,
  request: {
    readonly signal: AbortSignal;
    readonly timeoutMs: number;
    readonly purpose: string;
    /** Called on every chunk (the caller's deadline then bounds the next silence). */
    readonly alive?: () => void;
  },
): Promise<ChatCompletion> {
  const stream = await client.chat.completions.create(
    { ...params, stream: true, stream_options: { include_usage: true } },
    { signal: request.signal, timeout: request.timeoutMs },
  );
  const accumulator = new ChunkAccumulator();
  const brokeOff = (cause?: unknown) =>
    new ModelUnavailableError(`the model's answer stream broke off (${request.purpose})`, {
      retryable: true,
      ...(cause === undefined ? {} : { cause }),
      details: { purpose: request.purpose },
    });
  // A stream that ends without its answer still cost what it generated so far: its error carries that.
  const failed = (err: unknown) =>
    withSpentUsage(err, accumulator.spentSoFar(JSON.stringify(params.messages)));
  try {
    for await (const chunk of stream) {
      request.alive?.();
      push(accumulator.add(chunk));
    }
  } catch (err) {
    if (err instanceof AgenturnError || err instanceof APIError || request.signal.aborted) throw failed(err);
    throw failed(brokeOff(err));
  }
  // The SDK ends the iteration quietly when the request is aborted: the caller maps this to cancel or deadline.
  if (request.signal.aborted) throw failed(new Error('model stream aborted'));
  if (!accumulator.finished) throw failed(brokeOff());
  accumulator.estimateUsageIfMissing(JSON.stringify(params.messages));
  return accumulator.completion();
}
