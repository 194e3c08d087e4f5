import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { BusError, type ContextLogger, transportError } from '@novelrag/bus';
import { ERROR_CODE_INFO, type ErrorCode } from '@novelrag/contracts';
import { ZodError } from 'zod';
import { ApiError } from './api-error';

interface HttpResponse {
  status(code: number): HttpResponse;
  setHeader(name: string, value: string): void;
  getHeader(name: string): unknown;
  json(body: unknown): void;
  headersSent?: boolean;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'VALIDATION_FAILED',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
};

/** Maps anything thrown while serving HTTP to `{code, message, details?}` with the right status; never leaks internals. */
export function toErrorResponse(exception: unknown): { status: number; body: ErrorBody } {
  if (exception instanceof ApiError) {
    return { status: exception.status, body: body(exception.code, exception.message, exception.details) };
  }
  const busError = exception instanceof BusError ? exception : transportError(exception, 'NATS');
  if (busError) {
    const { code, message, details } = busError.envelope;
    return { status: ERROR_CODE_INFO[code].httpStatus, body: body(code, message, details) };
  }
  // A contract parse of request data that the DTO let through: still the client's input, never a 5xx.
  if (exception instanceof ZodError) {
    const issues = exception.issues.slice(0, 20).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return { status: 400, body: body('VALIDATION_FAILED', issues.slice(0, 3).join('; '), { issues }) };
  }
  // body-parser errors (malformed JSON, oversized body) carry `type` and `status`.
  const parserError = exception as { type?: string; status?: number };
  if (parserError?.type === 'entity.too.large') {
    return { status: 413, body: body('PAYLOAD_TOO_LARGE', 'the request body is too large') };
  }
  if (parserError?.type === 'entity.parse.failed') {
    return { status: 400, body: body('VALIDATION_FAILED', 'the request body is not valid JSON') };
  }
  if (
    typeof parserError?.type === 'string' &&
    typeof parserError.status === 'number' &&
    parserError.status < 500
  ) {
    return {
      status: parserError.status,
      body: body('VALIDATION_FAILED', 'the request body could not be read'),
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse() as { message?: unknown } | string;
    const messages =
      typeof response === 'object' && Array.isArray(response.message) ? (response.message as string[]) : null;
    if (messages) {
      return {
        status: 400,
        body: body('VALIDATION_FAILED', messages.slice(0, 5).join('; '), { issues: messages.slice(0, 50) }),
      };
    }
    const code = STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');
    return { status, body: body(code, status >= 500 ? 'internal error' : exception.message) };
  }
  return { status: 500, body: body('INTERNAL', 'internal error (see the gateway log)') };
}

function body(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
  return details ? { code, message, details } : { code, message };
}

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: ContextLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<HttpResponse>();
    const { status, body: errorBody } = toErrorResponse(exception);
    if (status >= 500) {
      this.logger.error('request failed', {
        error: exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception),
      });
    }
    if (res.headersSent) return;
    if (status === 429) {
      if (res.getHeader('Retry-After') === undefined) res.setHeader('Retry-After', '60');
    } else if (status === 503 || status === 504) res.setHeader('Retry-After', '1');
    res.status(status).json(errorBody);
  }
}
