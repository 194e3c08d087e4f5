import { AgenturnError } from './agenturn-error';

/** One validation problem of a model output: where (dotted path, `(root)` for the whole) and what. */
export interface OutputIssue {
  readonly path: string;
  readonly message: string;
}

export interface ModelOutputErrorOptions {
  /** The issues of the LAST attempt (validation messages only, never the output itself). */
  readonly issues: readonly OutputIssue[];
  /** Length in characters of the last raw output (0 when empty or a refusal). */
  readonly rawOutputLength: number;
  readonly attempts: number;
  readonly purpose?: string;
  /** Short reason when there are no schema issues (`invalid JSON`, `refusal`, `empty output`, `no tool call`). */
  readonly reason?: string;
  readonly cause?: unknown;
}

const MAX_ISSUES_IN_MESSAGE = 5;

/**
 * The model's output stayed invalid after the adapter's validation retries. The message names the issues and the
 * output length but never contains model content (it may hold user data and would leak into logs). Not retryable:
 * the adapter already retried with the error fed back.
 */
export class ModelOutputError extends AgenturnError {
  override readonly name = 'ModelOutputError';
  readonly issues: readonly OutputIssue[];
  readonly rawOutputLength: number;
  readonly attempts: number;

  constructor(options: ModelOutputErrorOptions) {
    const shown = options.issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((i) => `${i.path}: ${i.message}`);
    const more =
      options.issues.length > MAX_ISSUES_IN_MESSAGE
        ? ` (+${options.issues.length - MAX_ISSUES_IN_MESSAGE} more)`
        : '';
    const what = shown.length > 0 ? shown.join('; ') + more : (options.reason ?? 'invalid output');
    const purpose = options.purpose === undefined ? '' : ` for ${options.purpose}`;
    super(
      'MODEL_OUTPUT_INVALID',
      `model output${purpose} invalid after ${options.attempts} attempt(s): ${what} (output length ${options.rawOutputLength})`,
      {
        fault: 'model',
        retryable: false,
        cause: options.cause,
        details: {
          issues: options.issues.slice(0, 20).map((i) => ({ path: i.path, message: i.message })),
          rawOutputLength: options.rawOutputLength,
          attempts: options.attempts,
          ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
        },
      },
    );
    this.issues = options.issues;
    this.rawOutputLength = options.rawOutputLength;
    this.attempts = options.attempts;
  }
}

/** A model call exceeded its deadline. Retryable. */
export class ModelTimeoutError extends AgenturnError {
  override readonly name = 'ModelTimeoutError';
  constructor(
    readonly timeoutMs: number,
    options: { readonly purpose?: string; readonly cause?: unknown } = {},
  ) {
    const purpose = options.purpose === undefined ? '' : ` (${options.purpose})`;
    super('TIMEOUT', `model call${purpose} timed out after ${timeoutMs} ms`, {
      fault: 'timeout',
      retryable: true,
      cause: options.cause,
      details: { timeoutMs, ...(options.purpose === undefined ? {} : { purpose: options.purpose }) },
    });
  }
}

/**
 * The model provider could not be reached or answered with an error after the transport retries. Retryable by
 * default; pass `retryable: false` for permanent failures (authentication, unknown model, bad request).
 */
export class ModelUnavailableError extends AgenturnError {
  override readonly name = 'ModelUnavailableError';
  constructor(
    message: string,
    options: {
      readonly retryable?: boolean;
      readonly status?: number;
      readonly details?: Readonly<Record<string, unknown>>;
      readonly cause?: unknown;
    } = {},
  ) {
    super('MODEL_UNAVAILABLE', message, {
      fault: 'system',
      retryable: options.retryable ?? true,
      cause: options.cause,
      details: { ...(options.status === undefined ? {} : { status: options.status }), ...options.details },
    });
  }
}
