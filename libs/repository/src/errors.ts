/** The fixed set of failure codes of the resource domain (they travel on the wire as `{code, message, details}`). */
export type ResourceErrorCode =
  'NOT_FOUND' | 'ALREADY_EXISTS' | 'INVALID_URI' | 'VALIDATION_FAILED' | 'CONFLICT' | 'UNAVAILABLE';

const RETRYABLE: Readonly<Record<ResourceErrorCode, boolean>> = {
  NOT_FOUND: false,
  ALREADY_EXISTS: false,
  INVALID_URI: false,
  VALIDATION_FAILED: false,
  CONFLICT: true,
  UNAVAILABLE: true,
};

/**
 * The one error type of the resource domain. Check identity by `code` (errors cross process boundaries as JSON),
 * `details` carries machine-readable context (the offending uri, keys, bounds...).
 */
export class ResourceError extends Error {
  override readonly name = 'ResourceError';

  constructor(
    readonly code: ResourceErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether retrying the same call may succeed (store outage, lost race), as opposed to a caller mistake. */
  get retryable(): boolean {
    return RETRYABLE[this.code];
  }

  toJSON(): {
    code: ResourceErrorCode;
    message: string;
    retryable: boolean;
    details?: Record<string, unknown>;
  } {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      ...(this.details ? { details: { ...this.details } } : {}),
    };
  }
}

/** True when `err` is a ResourceError (by code, so it also holds for errors rebuilt from JSON). */
export function isResourceError(err: unknown, code?: ResourceErrorCode): err is ResourceError {
  if (!(err instanceof Error) || err.name !== 'ResourceError' || !('code' in err)) return false;
  return code === undefined || err.code === code;
}
