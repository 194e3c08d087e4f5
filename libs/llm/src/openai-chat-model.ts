import {
  CancelledError,
  type ChatCallOptions,
  type ChatModel,
  type ChatResult,
  type ChatStream,
  type ChatUsage,
  chatStream,
  ConfigError,
  ModelOutputError,
  type PushText,
  spentUsageOf,
  type StreamCallOptions,
  type StructuredCallOptions,
  type ToolCallOptions,
  type ToolCallReply,
  withSpentUsage,
} from '@novelrag/agenturn';
import { type Span, inLlmSpan, recordLlmResult } from '@novelrag/telemetry';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { type ProviderSchema, providerSchemaOf, SCHEMA_NAME_PATTERN } from './json-schema';
import { nodeHttpFetch } from './node-http-fetch';
import { streamCompletion } from './openai-chat-stream';
import { type RequestBody, toProviderMessages, toolsBody, withSystemNote } from './openai-request';
import { mapOpenAIError, outcomeOf } from './openai-errors';
import {
  type Interpretation,
  NO_CHOICES,
  interpretStructured,
  interpretText,
  interpretToolCalls,
} from './reply-interpretation';
import {
  type LlmCallKind,
  type LlmCallOutcome,
  type LlmUsageHook,
  ZERO_USAGE,
  addUsage,
  emitUsage,
  fromProviderUsage,
} from './usage';

/** How structured output is requested from the provider. */
export type StructuredMode = 'json_schema' | 'json_object';

/** Model names: one default and optional overrides per call purpose (`assess`, `decide`, `translate`, ...). */
export interface ModelSelection {
  readonly default: string;
  readonly byPurpose?: Readonly<Record<string, string>>;
}

export interface OpenAIChatModelOptions {
  /** Any OpenAI-compatible endpoint (OpenAI, Azure's /openai/v1, vLLM, Ollama, llama.cpp); SDK default when absent. */
  readonly baseURL?: string;
  /** Required by the SDK even for servers that ignore it; a placeholder is used when absent. */
  readonly apiKey?: string;
  readonly models: ModelSelection;
  /**
   * `json_schema` (default): provider-side strict structured output. `json_object`: for servers without strict
   * json_schema; the schema goes into a system message and the answer is validated here as always.
   */
  readonly structuredMode?: StructuredMode;
  /** Deadline of one model request including the SDK's transport retries (default 60 s). */
  readonly timeoutMs?: number;
  /** SDK transport retries for connection errors, 408/409/429/5xx (default 2, as the SDK). */
  readonly maxRetries?: number;
  /** Further attempts after an invalid answer, with the problem fed back (default 2). */
  readonly validationRetries?: number;
  readonly temperature?: number;
  /** Usage and outcome of every call (never content). */
  readonly onUsage?: LlmUsageHook;
  /** The transport (default: `nodeHttpFetch`, node:http with keep-alive; `NOVELRAG_LLM_TRANSPORT=fetch`: the global fetch). */
  readonly fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** A streamed answer may take at most this many `timeoutMs` in all (each silence within it at most one). */
const STREAM_TIMEOUTS = 10;
const DEFAULT_VALIDATION_RETRIES = 2;
/** Servers such as Ollama or vLLM ignore the key but the SDK refuses to start without one. */
const PLACEHOLDER_API_KEY = 'not-needed';

/** How one attempt reaches the provider: a plain request, or a stream whose text goes to the reader meanwhile. */
interface Exchange {
  /** `alive` is called on every streamed chunk: the deadline then bounds the next silence, not the whole answer. */
  send(
    params: ChatCompletionCreateParamsNonStreaming,
    signal: AbortSignal,
    timeoutMs: number,
    alive: () => void,
  ): Promise<ChatCompletion>;
  /** Whether an invalid answer may still be retried (not once streamed text reached the reader). */
  mayRetry(): boolean;
}

/**
 * `ChatModel` over the OpenAI Chat Completions API (`chat.completions.create`), usable with any compatible server.
 *
 * Every answer is parsed and validated here (also in `json_schema` mode: local servers may not enforce it). An invalid
 * answer is retried up to `validationRetries` times with the problem fed back, then rejected with `ModelOutputError`.
 * `timeoutMs` bounds each request (transport retries included); validation retries get a fresh budget. Errors follow
 * the `ChatModel` contract; messages and usage events never contain prompts, outputs or the key.
 */
export class OpenAIChatModel implements ChatModel {
  private readonly client: OpenAI;
  private readonly structuredMode: StructuredMode;
  private readonly timeoutMs: number;
  private readonly validationRetries: number;
  /** Provider JSON Schemas by zod schema: the conversion walks the whole schema and the same schemas recur. */
  private readonly jsonSchemas = new WeakMap<object, ProviderSchema>();

  constructor(private readonly options: OpenAIChatModelOptions) {
    if (!options.models.default) throw new ConfigError('OpenAIChatModel needs a default model name');
    this.structuredMode = options.structuredMode ?? 'json_schema';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.validationRetries = options.validationRetries ?? DEFAULT_VALIDATION_RETRIES;
    if (!(this.timeoutMs > 0)) throw new ConfigError('OpenAIChatModel timeoutMs must be positive');
    if (!(this.validationRetries >= 0))
      throw new ConfigError('OpenAIChatModel validationRetries must be >= 0');
    this.client = new OpenAI({
      apiKey: options.apiKey || PLACEHOLDER_API_KEY,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 2,
      timeout: this.timeoutMs,
      // The SDK's debug log prints request bodies; prompts must not reach logs.
      logLevel: 'off',
      // node:http rather than the global fetch: about half the client CPU per call (node-http-fetch.ts).
      fetch: options.fetch ?? nodeHttpFetch(),
    });
  }

  /** The model name a purpose maps to. */
  modelFor(purpose: string): string {
    return this.options.models.byPurpose?.[purpose] ?? this.options.models.default;
  }

  async structured<T>(options: StructuredCallOptions<T>): Promise<ChatResult<T>> {
    if (!SCHEMA_NAME_PATTERN.test(options.schemaName)) {
      throw new ConfigError(`schema name "${options.schemaName}" must match ${SCHEMA_NAME_PATTERN.source}`);
    }
    let provider = this.jsonSchemas.get(options.schema);
    if (!provider) {
      provider = providerSchemaOf(options.schema, options.schemaName);
      this.jsonSchemas.set(options.schema, provider);
    }
    const { schema, restore } = provider;
    let messages = toProviderMessages(options.messages);
    let body: RequestBody;
    if (this.structuredMode === 'json_schema') {
      body = {
        response_format: {
          type: 'json_schema',
          json_schema: { name: options.schemaName, schema, strict: true },
        },
      };
    } else {
      messages = withSystemNote(
        messages,
        `Answer with one JSON object only (no prose, no Markdown) that is valid against this JSON Schema ` +
          `named "${options.schemaName}":\n${JSON.stringify(schema)}`,
      );
      body = { response_format: { type: 'json_object' } };
    }
    return this.run('structured', options, messages, body, (m) =>
      interpretStructured(m, options.schema, restore),
    );
  }

  async callTools(options: ToolCallOptions): Promise<ChatResult<ToolCallReply>> {
    const { toolChoice } = options;
    const body = toolsBody(options.tools, toolChoice);
    return this.run('tools', options, toProviderMessages(options.messages), body, (m) =>
      interpretToolCalls(m, options.tools, toolChoice),
    );
  }

  async text(options: ChatCallOptions): Promise<ChatResult<string>> {
    return this.run('text', options, toProviderMessages(options.messages), {}, interpretText);
  }

  /**
   * Streams the answer (`stream: true` with usage included). An invalid answer is retried like the other calls only
   * while no text has reached the reader (a tool-call-only answer); after that it fails with `ModelOutputError`.
   */
  stream(options: StreamCallOptions): ChatStream {
    return chatStream((push, signal) => this.runStream(options, push, signal), options.signal);
  }

  private async runStream(
    options: StreamCallOptions,
    push: PushText,
    signal: AbortSignal,
  ): Promise<ChatResult<ToolCallReply>> {
    const tools = options.tools ?? [];
    const toolChoice = options.toolChoice ?? 'auto';
    const body = tools.length > 0 ? toolsBody(tools, toolChoice) : {};
    let streamed = false;
    const exchange: Exchange = {
      send: (params, requestSignal, timeoutMs, alive) =>
        streamCompletion(
          this.client,
          params,
          (text) => {
            if (text === '') return;
            streamed = true;
            push(text);
          },
          { signal: requestSignal, timeoutMs, purpose: options.purpose, alive },
        ),
      mayRetry: () => !streamed,
    };
    const interpret = (
      message: ChatCompletion['choices'][number]['message'],
    ): Interpretation<ToolCallReply> => {
      if (tools.length > 0) return interpretToolCalls(message, tools, toolChoice);
      const text = interpretText(message);
      return text.ok ? { ok: true, value: { content: text.value, toolCalls: [] } } : text;
    };
    const call = { ...options, signal };
    return this.run('stream', call, toProviderMessages(options.messages), body, interpret, exchange);
  }

  /** The attempt loop shared by the three call kinds: request, interpret, feed problems back, give up. */
  private run<T>(
    kind: LlmCallKind,
    call: ChatCallOptions,
    initialMessages: ChatCompletionMessageParam[],
    body: RequestBody,
    interpret: (message: ChatCompletion['choices'][number]['message']) => Interpretation<T>,
    exchange: Exchange = this.plainExchange,
  ): Promise<ChatResult<T>> {
    // One GenAI span per call (its validation retries included); content only when capture is explicitly on.
    return inLlmSpan(
      {
        operation: 'chat',
        model: this.modelFor(call.purpose),
        purpose: call.purpose,
        ...(this.options.temperature === undefined ? {} : { temperature: this.options.temperature }),
      },
      (span) => this.attemptLoop(span, kind, call, initialMessages, body, interpret, exchange),
    );
  }

  private async attemptLoop<T>(
    span: Span,
    kind: LlmCallKind,
    call: ChatCallOptions,
    initialMessages: ChatCompletionMessageParam[],
    body: RequestBody,
    interpret: (message: ChatCompletion['choices'][number]['message']) => Interpretation<T>,
    exchange: Exchange,
  ): Promise<ChatResult<T>> {
    const started = Date.now();
    let finishReasons: string[] = [];
    let output: unknown;
    let model = this.modelFor(call.purpose);
    const requestedModel = model;
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    let usage: ChatUsage = ZERO_USAGE;
    let attempts = 0;
    let messages = initialMessages;
    const report = (outcome: LlmCallOutcome, errorCode?: string) => {
      recordLlmResult(span, {
        responseModel: model,
        inputTokens: usage.promptTokens,
        outputTokens: usage.completionTokens,
        attempts,
        finishReasons,
        input: messages,
        output,
      });
      emitUsage(this.options.onUsage, {
        kind,
        purpose: call.purpose,
        model,
        outcome,
        usage,
        latencyMs: Date.now() - started,
        attempts,
        ...(errorCode ? { errorCode } : {}),
      });
    };
    try {
      for (;;) {
        attempts += 1;
        const completion = await this.request(call, timeoutMs, exchange, {
          ...body,
          model: requestedModel,
          messages,
          ...(this.options.temperature === undefined ? {} : { temperature: this.options.temperature }),
        });
        usage = addUsage(usage, fromProviderUsage(completion.usage));
        if (completion.model) model = completion.model;
        const message = completion.choices[0]?.message;
        finishReasons = completion.choices.map((c) => c.finish_reason ?? 'unknown');
        output = message;
        const result: Interpretation<T> = message ? interpret(message) : NO_CHOICES;
        if (result.ok) {
          report('ok');
          return { value: result.value, model, usage, latencyMs: Date.now() - started, attempts };
        }
        if (attempts > this.validationRetries || !exchange.mayRetry())
          throw stillInvalid(result, attempts, call.purpose);
        messages = [...messages, ...result.retryMessages];
      }
    } catch (err) {
      // Our own errors (ModelOutputError, ...) pass through unchanged.
      const mapped = mapOpenAIError(err, {
        purpose: call.purpose,
        timeoutMs,
        deadlineFired: false,
        operation: 'chat',
      });
      usage = addUsage(usage, spentUsageOf(err) ?? ZERO_USAGE); // + what a broken stream generated before it broke
      report(outcomeOf(mapped), mapped.code);
      throw withSpentUsage(mapped, usage);
    }
  }

  private readonly plainExchange: Exchange = {
    send: (params, signal, timeoutMs) =>
      this.client.chat.completions.create(params, { signal, timeout: timeoutMs }),
    mayRetry: () => true,
  };

  /**
   * One request, bounded by `timeoutMs` (transport retries included) and the caller's signal. A streamed answer is
   * bounded by `timeoutMs` until its first chunk and then between any two chunks (a slow model that keeps writing is
   * not cut), and as a whole by STREAM_TIMEOUTS times `timeoutMs`.
   */
  private async request(
    call: ChatCallOptions,
    timeoutMs: number,
    exchange: Exchange,
    params: ChatCompletionCreateParamsNonStreaming,
  ): Promise<ChatCompletion> {
    if (call.signal?.aborted) throw new CancelledError(`model call (${call.purpose}) cancelled`);
    const deadline = new AbortController();
    const cap = Date.now() + timeoutMs * STREAM_TIMEOUTS;
    let timer = setTimeout(() => deadline.abort(), timeoutMs);
    const alive = () => {
      if (deadline.signal.aborted) return;
      clearTimeout(timer);
      timer = setTimeout(() => deadline.abort(), Math.max(0, Math.min(timeoutMs, cap - Date.now())));
    };
    const signal = call.signal ? AbortSignal.any([call.signal, deadline.signal]) : deadline.signal;
    try {
      return await exchange.send(params, signal, timeoutMs, alive);
    } catch (err) {
      const mapped = mapOpenAIError(err, {
        purpose: call.purpose,
        timeoutMs,
        deadlineFired: deadline.signal.aborted,
        operation: 'chat',
        ...(call.signal ? { callerSignal: call.signal } : {}),
      });
      throw withSpentUsage(mapped, spentUsageOf(err));
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The answer stayed invalid after the retries this call may make. */
function stillInvalid(
  result: Extract<Interpretation<unknown>, { ok: false }>,
  attempts: number,
  purpose: string,
) {
  return new ModelOutputError({
    issues: result.issues,
    rawOutputLength: result.rawOutputLength,
    attempts,
    purpose,
    reason: result.reason,
  });
}
