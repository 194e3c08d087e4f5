import { ErrorCode, ErrorEnvelope, errorEnvelope } from '@novelrag/contracts';
import { ZodError, z } from 'zod';

/** An error that crosses the bus as a coded envelope. Identity is by `code`, never by class. */
export class BusError extends Error {
  override readonly name = 'BusError';
  constructor(readonly envelope: ErrorEnvelope) {
    super(envelope.message);
  }
  get code(): ErrorCode {
    return this.envelope.code;
  }
  get retryable(): boolean {
    return this.envelope.retryable;
  }
  static of(code: ErrorCode, message: string, details?: Record<string, unknown>): BusError {
    return new BusError(errorEnvelope(code, message, details));
  }
}

const CodedShape = z
  .object({ code: ErrorCode, message: z.string(), retryable: z.boolean().optional() })
  .loose();

/**
 * Turns anything thrown by a handler into the wire envelope. Coded errors (BusError, agenturn errors, anything with a
 * known `code`) keep their code and message; zod errors become VALIDATION_FAILED naming the paths; anything else is
 * INTERNAL with a generic message (its detail goes to the log, not to the caller).
 */
export function toErrorEnvelope(err: unknown): ErrorEnvelope {
  if (err instanceof BusError) return err.envelope;
  if (err instanceof ZodError) {
    return errorEnvelope('VALIDATION_FAILED', `invalid payload: ${summarizeZodError(err)}`, {
      issues: err.issues
        .slice(0, 20)
        .map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    });
  }
  const parsedEnvelope = ErrorEnvelope.safeParse(err);
  if (parsedEnvelope.success) return parsedEnvelope.data;
  const coded = CodedShape.safeParse(err);
  if (coded.success) {
    const details = (err as { details?: unknown }).details;
    const env = errorEnvelope(
      coded.data.code,
      coded.data.message,
      details && typeof details === 'object' ? (details as Record<string, unknown>) : undefined,
    );
    return coded.data.retryable === undefined ? env : { ...env, retryable: coded.data.retryable };
  }
  return errorEnvelope('INTERNAL', 'internal error');
}

export function summarizeZodError(err: ZodError, max = 5): string {
  const parts = err.issues
    .slice(0, max)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`);
  const more = err.issues.length > max ? ` (+${err.issues.length - max} more)` : '';
  return parts.join('; ') + more;
}
