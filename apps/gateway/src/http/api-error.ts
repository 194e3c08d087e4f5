import { ERROR_CODE_INFO, type ErrorCode } from '@novelrag/contracts';

/** An HTTP-facing error with a wire code; the filter turns it into `{code, message, details}` with the code's status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
  get status(): number {
    return ERROR_CODE_INFO[this.code].httpStatus;
  }
}
