import type { ChatUsage } from '@novelrag/agenturn';
import { Metrics } from '@novelrag/telemetry';

/** Which adapter operation an event describes. */
export type LlmCallKind = 'structured' | 'tools' | 'text' | 'stream' | 'embeddings';

/** How a model call ended, as reported to the usage hook. */
export type LlmCallOutcome = 'ok' | 'invalid_output' | 'timeout' | 'cancelled' | 'unavailable';

/**
 * One finished adapter call, for metrics and cost accounting. Carries no prompt, no output and no key: only what the
 * call was for, which model served it and what it cost.
 */
export interface LlmUsageEvent {
  readonly kind: LlmCallKind;
  readonly purpose: string;
  readonly model: string;
  readonly outcome: LlmCallOutcome;
  /** Summed over validation retries. */
  readonly usage: ChatUsage;
  readonly latencyMs: number;
  /** Model requests made (validation retries included, SDK transport retries not). */
  readonly attempts: number;
  /** The error code when `outcome` is not `ok`. */
  readonly errorCode?: string;
}

/** Receives usage events; must not throw (a throwing hook is ignored so accounting can never fail a call). */
export type LlmUsageHook = (event: LlmUsageEvent) => void;

export const ZERO_USAGE: ChatUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

export function addUsage(a: ChatUsage, b: ChatUsage): ChatUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** Maps the provider's snake_case usage (absent on some compatible servers) to ours. */
export function fromProviderUsage(
  usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null | undefined,
): ChatUsage {
  const promptTokens = usage?.prompt_tokens ?? 0;
  const completionTokens = usage?.completion_tokens ?? 0;
  return {
    promptTokens,
    completionTokens,
    totalTokens: usage?.total_tokens ?? promptTokens + completionTokens,
  };
}

/** Records the call in the process's metrics, then hands it to `hook` (a throwing hook is ignored). */
export function emitUsage(hook: LlmUsageHook | undefined, event: LlmUsageEvent): void {
  const labels = { purpose: event.purpose, model: event.model };
  Metrics.llmCalls.inc({
    ...labels,
    outcome: event.outcome === 'ok' ? 'ok' : (event.errorCode ?? event.outcome),
  });
  Metrics.llmTokens.inc({ ...labels, type: 'input' }, event.usage.promptTokens);
  Metrics.llmTokens.inc({ ...labels, type: 'output' }, event.usage.completionTokens);
  Metrics.llmLatency.observe(labels, event.latencyMs / 1_000);
  if (!hook) return;
  try {
    hook(event);
  } catch {
    // Accounting must never turn a successful call into a failure.
  }
}

/**
 * A deliberately generous token count of `text` for a server that reported no usage: a quarter token per ASCII
 * character (English runs about four to a token) and one per other character (a CJK character is one or more).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 128) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}
