import { AgenturnError } from './agenturn-error';

interface CommonOptions {
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/** The deployment or configuration is wrong (missing option, bad model name, unusable setting). Not retryable. */
export class ConfigError extends AgenturnError {
  override readonly name = 'ConfigError';
  constructor(message: string, options: CommonOptions = {}) {
    super('INTERNAL', message, { ...options, fault: 'config' });
  }
}

/** Input (from a user, a caller or a bus message) failed validation. */
export class ValidationError extends AgenturnError {
  override readonly name = 'ValidationError';
  constructor(message: string, options: CommonOptions = {}) {
    super('VALIDATION_FAILED', message, { ...options, fault: 'user' });
  }
}

/** The thing asked for does not exist. */
export class NotFoundError extends AgenturnError {
  override readonly name = 'NotFoundError';
  constructor(message: string, options: CommonOptions = {}) {
    super('NOT_FOUND', message, { ...options, fault: 'not_found' });
  }
}

/** Concurrent modification or duplicate. Retryable only when the caller says so (e.g. a revision race). */
export class ConflictError extends AgenturnError {
  override readonly name = 'ConflictError';
  constructor(message: string, options: CommonOptions & { readonly retryable?: boolean } = {}) {
    super('CONFLICT', message, { ...options, fault: 'conflict' });
  }
}

/** The operation was cancelled through its `AbortSignal` (user cancel, shutdown). Never retried. */
export class CancelledError extends AgenturnError {
  override readonly name = 'CancelledError';
  constructor(message = 'operation cancelled', options: CommonOptions = {}) {
    super('CANCELLED', message, { ...options, fault: 'user' });
  }
}

/**
 * A deadline passed (tool call, human interaction, any bounded wait). Named so to avoid shadowing the global
 * `TimeoutError` DOMException that `AbortSignal.timeout` produces.
 */
export class DeadlineExceededError extends AgenturnError {
  override readonly name = 'DeadlineExceededError';
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
    options: CommonOptions & { readonly retryable?: boolean } = {},
  ) {
    super('TIMEOUT', `${operation} exceeded its deadline of ${timeoutMs} ms`, {
      retryable: true,
      ...options,
      fault: 'timeout',
      details: { operation, timeoutMs, ...options.details },
    });
  }
}

/** A tool named by a plan is not in the catalog (or no runner serves it). */
export class ToolNotFoundError extends AgenturnError {
  override readonly name = 'ToolNotFoundError';
  constructor(
    readonly toolName: string,
    options: CommonOptions = {},
  ) {
    super('TOOL_NOT_FOUND', `Tool ${toolName} not found`, {
      ...options,
      fault: 'not_found',
      details: { tool: toolName, ...options.details },
    });
  }
}

/** Which budget ran out. */
export type BudgetLimit = 'max_steps' | 'wall_clock' | 'max_iterations' | 'tokens';

/** A configured budget (steps, wall clock, iterations, tokens) is used up. Not retryable with the same budget. */
export class BudgetExhaustedError extends AgenturnError {
  override readonly name = 'BudgetExhaustedError';
  constructor(
    readonly limit: BudgetLimit,
    message: string,
    options: CommonOptions = {},
  ) {
    super('BUDGET_EXHAUSTED', message, { ...options, fault: 'user', details: { limit, ...options.details } });
  }
}
