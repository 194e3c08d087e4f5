import { createHash } from 'node:crypto';
import type { FakeToolCall, FakeUsage } from './fake-openai-types';

/** A rough token estimate (4 characters per token), enough for usage accounting tests. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

let counter = 0;
export function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}-fake-${counter}`;
}

export function usageOf(usage: FakeUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

export interface CompletionParts {
  readonly model: string;
  readonly content: string | null;
  readonly refusal?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  readonly usage: FakeUsage;
}

/** A `chat.completion` object in the real response shape. */
export function chatCompletion(parts: CompletionParts): Record<string, unknown> {
  const toolCalls = parts.toolCalls?.map((call) => ({
    id: call.id ?? nextId('call'),
    type: 'function',
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  const hasCalls = toolCalls !== undefined && toolCalls.length > 0;
  return {
    id: nextId('chatcmpl'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: parts.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: parts.content,
          refusal: parts.refusal ?? null,
          ...(hasCalls ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: hasCalls ? 'tool_calls' : 'stop',
      },
    ],
    usage: usageOf(parts.usage),
  };
}

/** OpenAI's error body. */
export function errorBody(
  message: string,
  type = 'server_error',
  code: string | null = null,
): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}

/**
 * A deterministic unit vector for a text: hashed character trigrams, so equal texts give equal vectors and similar
 * texts similar ones (search tests can rely on the nearest neighbour of a text being itself).
 */
export function hashedVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const padded = `  ${text.toLowerCase()}  `;
  for (let i = 0; i + 3 <= padded.length; i += 1) {
    const h = createHash('sha256')
      .update(padded.slice(i, i + 3))
      .digest();
    const index = h.readUInt32BE(0) % dimensions;
    v[index] = (v[index] ?? 0) + ((h[4] ?? 0) & 1 ? 1 : -1);
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

export function embeddingsResponse(
  model: string,
  inputs: readonly string[],
  dimensions: number,
  base64: boolean,
): Record<string, unknown> {
  const data = inputs.map((text, index) => {
    const vector = hashedVector(text, dimensions);
    const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
    return { object: 'embedding', index, embedding };
  });
  const tokens = inputs.reduce((n, t) => n + estimateTokens(t), 0);
  return { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}
