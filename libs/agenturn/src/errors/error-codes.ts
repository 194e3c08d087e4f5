/**
 * The error codes agenturn errors carry. Same names as the wire list (`ErrorCode` in `@novelrag/contracts`), so an
 * adapter can put `error.code` into an envelope unchanged; agenturn cannot import contracts, hence the copy. Keep the
 * two lists in step (the contracts tests may assert this one is a subset of theirs).
 */
export const AGENTURN_ERROR_CODES = [
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
] as const;
export type AgenturnErrorCode = (typeof AGENTURN_ERROR_CODES)[number];

const CODE_SET: ReadonlySet<string> = new Set(AGENTURN_ERROR_CODES);

export function isAgenturnErrorCode(value: unknown): value is AgenturnErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * Who is at fault, which decides how a failure is reported and whether anyone should retry:
 * `user` bad input or a user decision (cancel); `config` deployment/configuration (missing template, bad option);
 * `system` infrastructure or a bug; `model` the LLM misbehaved (invalid output); `timeout` a deadline passed;
 * `not_found` the thing asked for does not exist; `conflict` concurrent modification or duplicate.
 */
export const ERROR_FAULTS = [
  'user',
  'config',
  'system',
  'model',
  'timeout',
  'not_found',
  'conflict',
] as const;
export type ErrorFault = (typeof ERROR_FAULTS)[number];
