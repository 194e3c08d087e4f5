import type { AgenturnErrorCode, ErrorFault } from './error-codes';

export interface AgenturnErrorOptions {
  readonly fault: ErrorFault;
  /** Whether repeating the same operation may succeed (transient failure). */
  readonly retryable?: boolean;
  /** JSON-safe facts for the caller (never secrets, never raw model content). */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/**
 * Base of every error agenturn and its adapters throw. Identity is by `code` (see `isAgenturnError`), never by
 * `instanceof`: errors cross process boundaries as `{code, message, retryable, details?}` envelopes and class
 * identity is lost there (and between duplicated module copies).
 */
export class AgenturnError extends Error {
  override readonly name: string = 'AgenturnError';
  readonly code: AgenturnErrorCode;
  readonly fault: ErrorFault;
  readonly retryable: boolean;
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(code: AgenturnErrorCode, message: string, options: AgenturnErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.fault = options.fault;
    this.retryable = options.retryable ?? false;
    if (options.details !== undefined) this.details = options.details;
  }
}
