import { isAgenturnErrorCode, type AgenturnErrorCode } from './error-codes';

/** The plain, serialisable form of an error (same shape as the wire envelope). */
export interface ErrorInfo {
  readonly code: AgenturnErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A coded error as seen structurally: an agenturn error, a revived envelope, or a look-alike from another copy. */
export interface CodedError {
  readonly code: AgenturnErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * True when `e` carries a known agenturn `code`, a string `message` and a boolean `retryable` (identity by code, not
 * `instanceof`, so envelopes and errors from other module copies count). With `code`, also checks that code.
 */
export function isAgenturnError(e: unknown, code?: AgenturnErrorCode): e is CodedError {
  if (typeof e !== 'object' || e === null) return false;
  const c = e as { code?: unknown; message?: unknown; retryable?: unknown };
  if (!isAgenturnErrorCode(c.code) || typeof c.message !== 'string' || typeof c.retryable !== 'boolean')
    return false;
  return code === undefined || c.code === code;
}

/**
 * Converts anything thrown into `ErrorInfo`. Coded errors keep code, message, retryable and details; anything else
 * becomes `INTERNAL` (not retryable) carrying the error's own message (or its string form) and its class name. Callers
 * that cross a trust boundary decide whether to show an INTERNAL message; inside the agent loop it is fed back to the
 * model so that it can react.
 */
export function toErrorInfo(e: unknown): ErrorInfo {
  if (isAgenturnError(e)) {
    const details = plainDetails(e.details);
    return {
      code: e.code,
      message: e.message,
      retryable: e.retryable,
      ...(details === undefined ? {} : { details }),
    };
  }
  if (e instanceof Error) {
    return { code: 'INTERNAL', message: e.message || e.name, retryable: false, details: { name: e.name } };
  }
  return { code: 'INTERNAL', message: describeUnknown(e), retryable: false };
}

function plainDetails(details: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return undefined;
  return details as Readonly<Record<string, unknown>>;
}

function describeUnknown(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e === undefined || e === null) return `unknown error (${String(e)})`;
  try {
    return JSON.stringify(e) ?? String(e);
  } catch {
    return String(e);
  }
}
