import type { z } from 'zod';

/** One message of a chat exchange. The loop renders a template into `system` and adds a short `user` turn. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** Token usage of one model call (summed over validation retries). */
export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** Common options of every model call. */
export interface ChatCallOptions {
  readonly messages: readonly ChatMessage[];
  /**
   * What the call is for (`assess`, `discover`, `refine`, `decide`, `analyze`, `translate`, ...). Adapters map it to a
   * model name (models per purpose) and report it in usage events; it is never sent to the provider as content.
   */
  readonly purpose: string;
  /** Aborts the call (cancellation of the goal). The adapter rejects with a `CancelledError`. */
  readonly signal?: AbortSignal;
  /** Per-call deadline in ms; the adapter's default applies when absent. Expiry rejects with a `ModelTimeoutError`. */
  readonly timeoutMs?: number;
}

export interface StructuredCallOptions<T> extends ChatCallOptions {
  /** The expected shape. Keep it inside the OpenAI strict subset (every field required, nullable instead of optional). */
  readonly schema: z.ZodType<T>;
  /** Name of the schema as sent to the provider (`^[a-zA-Z0-9_-]{1,64}$`). */
  readonly schemaName: string;
}

/** A function the model may call, in OpenAI function format. `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** `auto`: the model may answer in text; `required`: it must call some tool; `{name}`: it must call that tool. */
export type ToolChoice = 'auto' | 'required' | { readonly name: string };

export interface ToolCallOptions extends ChatCallOptions {
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice: ToolChoice;
}

export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  /** Parsed JSON arguments (an object). Unparseable arguments are a model-behaviour error, retried by the adapter. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

export interface ToolCallReply {
  /** Free text that came with (or instead of) the tool calls; null when there was none. */
  readonly content: string | null;
  readonly toolCalls: readonly ToolCallRequest[];
}

/** A streamed call: plain text, or text plus functions the model may call instead of (or after) writing. */
export interface StreamCallOptions extends ChatCallOptions {
  /** Functions the model may call; absent or empty for a plain text answer. */
  readonly tools?: readonly ToolDefinition[];
  /** Only with `tools`; default `auto`. */
  readonly toolChoice?: ToolChoice;
}

/**
 * A streamed answer. Iterating yields the answer's text in order, as it arrives (non-empty pieces); `result` settles
 * after the last piece with the whole reply (`content` is the concatenated text, `toolCalls` what the model called)
 * and its usage. The stream runs whether or not anyone iterates: `result` alone may be awaited (pieces are buffered).
 *
 * One consumer only: a second iteration throws. Leaving the loop early (`break`, `return`) abandons the call: the
 * request is aborted and `result` rejects with `CancelledError`. A failure ends the iteration with the same error
 * `result` rejects with (the `ChatModel` errors); text already yielded is then partial and must be discarded. Once
 * text has been yielded the adapter no longer retries an invalid answer.
 */
export interface ChatStream extends AsyncIterable<string> {
  readonly result: Promise<ChatResult<ToolCallReply>>;
}

/** What every call returns: the value plus what it cost. */
export interface ChatResult<T> {
  readonly value: T;
  readonly model: string;
  readonly usage: ChatUsage;
  readonly latencyMs: number;
  /** 1 when the first answer was valid; more when validation retries were needed. */
  readonly attempts: number;
}

/**
 * The port every LLM-backed component talks to. Implementations: the OpenAI adapter (`@novelrag/llm`) and the strict
 * scripted model (`@novelrag/agenturn/testing`).
 *
 * Errors (all `AgenturnError`s): `ModelOutputError` when the output stays invalid after the adapter's validation
 * retries, `ModelTimeoutError` on deadline, `CancelledError` when `signal` aborts, `ModelUnavailableError` for
 * transport/provider failures that survived transport retries. A failed call that had already cost tokens (retries,
 * a stream cut mid-answer) records them on its error: `spentUsageOf(err)`.
 */
export interface ChatModel {
  /** Structured output validated against `schema` (provider-side json_schema where supported, always re-parsed). */
  structured<T>(options: StructuredCallOptions<T>): Promise<ChatResult<T>>;
  /** Native tool calling. */
  callTools(options: ToolCallOptions): Promise<ChatResult<ToolCallReply>>;
  /** Plain text. */
  text(options: ChatCallOptions): Promise<ChatResult<string>>;
  /** Text streamed as it is generated (optionally with tools); see `ChatStream`. Returns at once, never throws. */
  stream(options: StreamCallOptions): ChatStream;
}
