/**
 * Every failure the CLI reports has a code and maps to an exit status, so scripts can branch on `$?` and on the
 * `code` of the JSON error: 2 = the command line is wrong, 3 = the gateway (or, for `tools check`, NATS) cannot be
 * reached, 4 = the gateway answered with an error, 5 = a bounded wait ran out, 1 = the goal ended without success or
 * a tool failed its conformance check.
 */
export const CLI_EXIT = {
  ok: 0,
  goalNotCompleted: 1,
  /** `tools check`: at least one check failed. */
  checkFailed: 1,
  usage: 2,
  unreachable: 3,
  api: 4,
  timeout: 5,
} as const;

export type CliErrorKind = 'usage' | 'unreachable' | 'api' | 'timeout' | 'protocol';

export class CliError extends Error {
  override readonly name = 'CliError';
  /** The gateway's Retry-After (seconds), when it sent one. */
  retryAfterS: number | undefined;
  constructor(
    readonly kind: CliErrorKind,
    /** The gateway's error code (`NOT_FOUND`, `VALIDATION_FAILED`…) or the CLI's own (`USAGE`, `UNREACHABLE`…). */
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** HTTP status when the gateway answered. */
    readonly status?: number,
  ) {
    super(message);
  }

  get exitCode(): number {
    switch (this.kind) {
      case 'usage':
        return CLI_EXIT.usage;
      case 'unreachable':
        return CLI_EXIT.unreachable;
      case 'timeout':
        return CLI_EXIT.timeout;
      case 'api':
      case 'protocol':
        return CLI_EXIT.api;
    }
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export const usageError = (message: string) => new CliError('usage', 'USAGE', message);
