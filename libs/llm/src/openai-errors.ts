import { AgenturnError, CancelledError, ModelTimeoutError, ModelUnavailableError } from '@novelrag/agenturn';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { LlmCallOutcome } from './usage';

/** What the caller knew when the request failed, to tell a cancel from our own deadline. */
export interface RequestFailureContext {
  readonly purpose: string;
  readonly timeoutMs: number;
  /** The caller's signal (goal cancellation). */
  readonly callerSignal?: AbortSignal;
  /** True when our per-request deadline fired (it aborts the SDK request, which then reports a user abort). */
  readonly deadlineFired: boolean;
  /** `chat` or `embeddings`, for the message. */
  readonly operation: string;
}

/** Statuses the provider may answer differently next time (same list the SDK retries). */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Maps anything the OpenAI SDK throws to an agenturn error. Messages carry the status and the provider's error
 * code/type only: never the provider's message (it can quote the prompt), the request body, or the API key.
 */
export function mapOpenAIError(err: unknown, ctx: RequestFailureContext): AgenturnError {
  // Our own errors (raised inside the attempt loop) pass through unchanged.
  if (err instanceof AgenturnError) return err;
  if (ctx.callerSignal?.aborted) return new CancelledError(`model call (${ctx.purpose}) cancelled`);
  if (ctx.deadlineFired || err instanceof APIConnectionTimeoutError) {
    return new ModelTimeoutError(ctx.timeoutMs, { purpose: ctx.purpose });
  }
  if (err instanceof APIUserAbortError) return new CancelledError(`model call (${ctx.purpose}) aborted`);
  if (err instanceof APIConnectionError) {
    return new ModelUnavailableError(
      `cannot reach the model provider for ${ctx.operation} (${ctx.purpose})`,
      {
        retryable: true,
        details: { purpose: ctx.purpose },
      },
    );
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const code = typeof err.code === 'string' ? err.code : undefined;
    const type = typeof err.type === 'string' ? err.type : undefined;
    const label = [code, type].filter((s) => s !== undefined).join('/');
    return new ModelUnavailableError(
      `model provider answered HTTP ${err.status}${label ? ` (${label})` : ''} to ${ctx.operation} (${ctx.purpose})`,
      {
        status: err.status,
        retryable: isRetryableStatus(err.status),
        details: {
          purpose: ctx.purpose,
          ...(code ? { providerCode: code } : {}),
          ...(type ? { providerType: type } : {}),
        },
      },
    );
  }
  // Not an SDK error: a bug or an unexpected response shape. Keep the cause for debugging, not in the message.
  return new ModelUnavailableError(
    `unexpected failure of the model client during ${ctx.operation} (${ctx.purpose})`,
    {
      retryable: false,
      cause: err,
      details: { purpose: ctx.purpose },
    },
  );
}

export function outcomeOf(err: AgenturnError): LlmCallOutcome {
  switch (err.code) {
    case 'MODEL_OUTPUT_INVALID':
      return 'invalid_output';
    case 'TIMEOUT':
      return 'timeout';
    case 'CANCELLED':
      return 'cancelled';
    default:
      return 'unavailable';
  }
}
