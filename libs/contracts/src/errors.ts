import { z } from 'zod';
import { Text } from './common';

/**
 * The fixed list of error codes that cross process boundaries. Receivers decide by code, never by message text or
 * class identity. Adding a code is a contract change (agenturn keeps a copy of this list, see its error-codes.ts).
 */
export const ErrorCode = z.enum([
  'VALIDATION_FAILED',
  'INVALID_URI',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'CONFLICT',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'TIMEOUT',
  'CANCELLED',
  'UNAVAILABLE',
  'NO_RESPONDERS',
  'TOOL_NOT_FOUND',
  'TOOL_FAILED',
  'TOOL_OUTPUT_TOO_LARGE',
  'MODEL_OUTPUT_INVALID',
  'MODEL_UNAVAILABLE',
  'BUDGET_EXHAUSTED',
  'INTERACTION_NOT_PENDING',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export interface ErrorCodeInfo {
  /** Whether repeating the same request later may succeed (the default of `ErrorEnvelope.retryable`). */
  readonly retryable: boolean;
  /** The HTTP status the gateway answers with (and the micro `Nats-Service-Error-Code`). */
  readonly httpStatus: number;
  readonly meaning: string;
}

export const ERROR_CODE_INFO: Readonly<Record<ErrorCode, ErrorCodeInfo>> = {
  VALIDATION_FAILED: { retryable: false, httpStatus: 400, meaning: 'The input does not match its schema.' },
  INVALID_URI: { retryable: false, httpStatus: 400, meaning: 'A resource URI is malformed.' },
  NOT_FOUND: { retryable: false, httpStatus: 404, meaning: 'The goal, resource or aspect does not exist.' },
  ALREADY_EXISTS: {
    retryable: false,
    httpStatus: 409,
    meaning: 'Something with that id or URI already exists.',
  },
  CONFLICT: { retryable: true, httpStatus: 409, meaning: 'A concurrent change won; re-read and try again.' },
  UNAUTHORIZED: { retryable: false, httpStatus: 401, meaning: 'Missing or invalid credentials.' },
  FORBIDDEN: { retryable: false, httpStatus: 403, meaning: 'The credentials do not allow this action.' },
  PAYLOAD_TOO_LARGE: { retryable: false, httpStatus: 413, meaning: 'The message exceeds the size limit.' },
  RATE_LIMITED: { retryable: true, httpStatus: 429, meaning: 'Too many requests; back off and retry.' },
  TIMEOUT: { retryable: true, httpStatus: 504, meaning: 'A deadline passed before the work finished.' },
  CANCELLED: { retryable: false, httpStatus: 409, meaning: 'The goal or operation was cancelled.' },
  UNAVAILABLE: {
    retryable: true,
    httpStatus: 503,
    meaning: 'A dependency (bus, store, service) is unavailable.',
  },
  NO_RESPONDERS: { retryable: true, httpStatus: 503, meaning: 'No service instance listens on the subject.' },
  TOOL_NOT_FOUND: { retryable: false, httpStatus: 404, meaning: 'No tool of that name is registered.' },
  TOOL_FAILED: { retryable: false, httpStatus: 502, meaning: 'The tool ran and reported a failure.' },
  TOOL_OUTPUT_TOO_LARGE: {
    retryable: false,
    httpStatus: 502,
    meaning: 'The tool output exceeds the size limit.',
  },
  MODEL_OUTPUT_INVALID: { retryable: true, httpStatus: 502, meaning: 'The LLM output failed validation.' },
  MODEL_UNAVAILABLE: {
    retryable: true,
    httpStatus: 503,
    meaning: 'The LLM endpoint failed or is unreachable.',
  },
  BUDGET_EXHAUSTED: {
    retryable: false,
    httpStatus: 429,
    meaning: 'A step, token or time budget is used up.',
  },
  INTERACTION_NOT_PENDING: {
    retryable: false,
    httpStatus: 409,
    meaning: 'The interaction was already answered, timed out, or never existed.',
  },
  INTERNAL: { retryable: false, httpStatus: 500, meaning: 'An unexpected failure (a bug).' },
};

/** How an error travels between processes. `details` is structured context (paths, ids), never secrets. */
export const ErrorEnvelope = z.object({
  /** One of the error codes; receivers decide by it. */
  code: ErrorCode,
  /** For people (and the model): what went wrong, in one or two sentences. */
  message: Text,
  /** Whether repeating the same request may succeed (normally the code's default). */
  retryable: z.boolean(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** Builds an envelope with the code's default `retryable` flag. */
export function errorEnvelope(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): ErrorEnvelope {
  const envelope: ErrorEnvelope = { code, message, retryable: ERROR_CODE_INFO[code].retryable };
  if (details !== undefined) envelope.details = details;
  return envelope;
}

export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  return ErrorEnvelope.safeParse(value).success;
}

/** The reply of every request/reply flow: data on success, an error envelope otherwise. */
export type Reply<T> = { ok: true; data: T } | { ok: false; error: ErrorEnvelope };

/** Builds the `Reply<T>` schema for a data schema (discriminated on `ok`). */
export function replyOf<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), data }),
    z.object({ ok: z.literal(false), error: ErrorEnvelope }),
  ]);
}

export function okReply<T>(data: T): Reply<T> {
  return { ok: true, data };
}

export function errorReply(error: ErrorEnvelope): Reply<never> {
  return { ok: false, error };
}

/**
 * Renders zod issues as `path: message; path: message` (the root is `(root)`), so an error names what is wrong and
 * where. Unknown keys are named by their own path; for a union that no variant matched, the issues of the closest
 * variant (fewest issues) are shown. Used for VALIDATION_FAILED messages.
 */
export function describeIssues(error: z.ZodError): string {
  return flattenIssues(error.issues, [])
    .map(({ path, message }) => `${path.length === 0 ? '(root)' : formatPath(path)}: ${message}`)
    .join('; ');
}

/** A zod issue reduced to its full path and message (see `describeIssues`). */
export interface IssueSummary {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

export function flattenIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[],
): IssueSummary[] {
  const out: IssueSummary[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: [...path, key], message: 'unknown key' });
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
      out.push(...flattenIssues(closest, path));
    } else {
      out.push({ path, message: issue.message });
    }
  }
  return out;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
