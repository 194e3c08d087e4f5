import { AgenturnError, CancelledError, ConfigError } from '@novelrag/agenturn';
import OpenAI from 'openai';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import type { Embedder } from './embedder';
import { mapOpenAIError, outcomeOf } from './openai-errors';
import {
  type LlmCallOutcome,
  type LlmUsageHook,
  ZERO_USAGE,
  addUsage,
  emitUsage,
  fromProviderUsage,
} from './usage';

export interface OpenAIEmbeddingsOptions {
  readonly baseURL?: string;
  readonly apiKey?: string;
  readonly model: string;
  /**
   * Vector length. Sent to the provider when given (text-embedding-3-* can shorten vectors); required for models
   * whose size is not known here.
   */
  readonly dimensions?: number;
  /** Texts per request (default 64). */
  readonly batchSize?: number;
  /** Deadline of one batch request including transport retries (default 60 s). */
  readonly timeoutMs?: number;
  readonly maxRetries?: number;
  /** Reported as purpose `embed`; never carries the texts. */
  readonly onUsage?: LlmUsageHook;
}

/** Native sizes of the OpenAI embedding models, for when `dimensions` is not configured. */
const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

const PURPOSE = 'embed';

/** `Embedder` over `/v1/embeddings` (OpenAI or any compatible server), batched, with the chat model's error mapping. */
export class OpenAIEmbeddings implements Embedder {
  readonly dimensions: number;
  /** `openai-compatible:<model>:<dimensions>`. */
  readonly id: string;
  private readonly client: OpenAI;
  private readonly batchSize: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: OpenAIEmbeddingsOptions) {
    if (!options.model) throw new ConfigError('OpenAIEmbeddings needs a model name');
    const dimensions = options.dimensions ?? KNOWN_DIMENSIONS[options.model];
    if (dimensions === undefined || !Number.isInteger(dimensions) || dimensions <= 0) {
      throw new ConfigError(
        `embedding dimensions unknown for model "${options.model}": set them (NOVELRAG_EMBEDDING_DIMENSIONS)`,
      );
    }
    this.dimensions = dimensions;
    this.id = `openai-compatible:${options.model}:${dimensions}`;
    this.batchSize = Math.max(1, options.batchSize ?? 64);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.client = new OpenAI({
      apiKey: options.apiKey || 'not-needed',
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: options.maxRetries ?? 2,
      timeout: this.timeoutMs,
      logLevel: 'off',
    });
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const started = Date.now();
    let usage = ZERO_USAGE;
    let attempts = 0;
    const vectors: number[][] = [];
    const report = (outcome: LlmCallOutcome, errorCode?: string) =>
      emitUsage(this.options.onUsage, {
        kind: 'embeddings',
        purpose: PURPOSE,
        model: this.options.model,
        outcome,
        usage,
        latencyMs: Date.now() - started,
        attempts,
        ...(errorCode ? { errorCode } : {}),
      });
    try {
      for (let i = 0; i < texts.length; i += this.batchSize) {
        attempts += 1;
        const batch = texts.slice(i, i + this.batchSize);
        const response = await this.request(batch, signal);
        usage = addUsage(usage, fromProviderUsage(response.usage));
        vectors.push(...this.vectorsOf(response, batch.length));
      }
    } catch (err) {
      const mapped =
        err instanceof AgenturnError
          ? err
          : mapOpenAIError(err, {
              purpose: PURPOSE,
              timeoutMs: this.timeoutMs,
              deadlineFired: false,
              operation: 'embeddings',
            });
      report(outcomeOf(mapped), mapped.code);
      throw mapped;
    }
    if (texts.length > 0) report('ok');
    return vectors;
  }

  private vectorsOf(response: CreateEmbeddingResponse, expected: number): number[][] {
    if (response.data.length !== expected) {
      throw new ConfigError(
        `embedding provider returned ${response.data.length} vectors for ${expected} texts`,
      );
    }
    const sorted = [...response.data].sort((a, b) => a.index - b.index);
    return sorted.map((d) => {
      if (d.embedding.length !== this.dimensions) {
        throw new ConfigError(
          `embedding model "${this.options.model}" returned ${d.embedding.length} dimensions, expected ${this.dimensions}`,
        );
      }
      return d.embedding;
    });
  }

  private async request(input: string[], signal: AbortSignal | undefined): Promise<CreateEmbeddingResponse> {
    if (signal?.aborted) throw new CancelledError('embedding cancelled');
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
    try {
      return await this.client.embeddings.create(
        {
          model: this.options.model,
          input,
          // Floats, not the SDK's default base64: several compatible servers do not implement base64.
          encoding_format: 'float',
          ...(this.options.dimensions === undefined ? {} : { dimensions: this.options.dimensions }),
        },
        { signal: combined, timeout: this.timeoutMs },
      );
    } catch (err) {
      throw mapOpenAIError(err, {
        purpose: PURPOSE,
        timeoutMs: this.timeoutMs,
        deadlineFired: deadline.signal.aborted,
        operation: 'embeddings',
        ...(signal ? { callerSignal: signal } : {}),
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
