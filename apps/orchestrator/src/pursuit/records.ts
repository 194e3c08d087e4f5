import { type OperationOutcome, type PursuitOutcome, operationPlan } from '@novelrag/agenturn';
import {
  ErrorCode,
  type ErrorEnvelope,
  type GoalOutcome,
  type GoalRecord,
  type JsonObject,
  type LimitHit,
  type StepRecord,
  type TokenUsage,
  errorEnvelope,
} from '@novelrag/contracts';

export const ZERO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/**
 * Budget of one goal record in the `goals` KV bucket: a KV value is one NATS message, at most the server's
 * `max_payload` (1 MiB by default), and a long goal with large tool results (up to 100 000 characters each) would
 * outgrow it and could no longer be checkpointed. Headroom is left for the message envelope.
 */
export const MAX_RECORD_BYTES = 768 * 1024;
/** What a clipped step result keeps of its start. */
const CLIPPED_RESULT_CHARS = 2_000;

/**
 * `record` within MAX_RECORD_BYTES: the results of its oldest steps are clipped first (their start kept, with a note
 * saying so). The full results stay in the goal's trace (`operation.outcome`) and in the runners' `tool-results`. A
 * record within the budget is returned as it is.
 */
export function fitRecord(record: GoalRecord, maxBytes = MAX_RECORD_BYTES): GoalRecord {
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
  let size = bytes(record);
  if (size <= maxBytes) return record;
  const steps = [...record.steps];
  for (let i = 0; i < steps.length && size > maxBytes; i++) {
    const step = steps[i] as StepRecord;
    const result = step.outcome.result;
    if (result === undefined || result.length <= CLIPPED_RESULT_CHARS) continue;
    const note = `… [clipped from ${result.length} characters to keep the goal record small; the full result is in the trace]`;
    const clipped = result.slice(0, CLIPPED_RESULT_CHARS) + note;
    steps[i] = { ...step, outcome: { ...step.outcome, result: clipped } };
    size -= bytes(result) - bytes(clipped);
  }
  return { ...record, steps };
}

/** The queued record of a submission (what the gateway stores before it publishes; also used when it is missing). */

/** A tool's own error code when it is one of ours, TOOL_FAILED otherwise (the message keeps the detail). */
export function envelopeOf(code: string | undefined, message: string): ErrorEnvelope {
  const known = ErrorCode.safeParse(code);
  return errorEnvelope(known.success ? known.data : 'TOOL_FAILED', message || 'the step failed');
}

/** Plain JSON (drops undefined, functions, prototypes), as stored and sent. */
export function toJsonObject(value: Readonly<Record<string, unknown>>): JsonObject {
  return JSON.parse(JSON.stringify(value ?? {})) as JsonObject;
}

/** The checkpointed form of an executed step. */
export function stepRecordOf(index: number, outcome: OperationOutcome, invocationId: string): StepRecord {
  const ok = outcome.status === 'success';
  return {
    index,
    plan: {
      tool: outcome.operation.tool,
      params: toJsonObject(outcome.operation.parameters),
      reason: outcome.operation.reason,
    },
    outcome: {
      status: outcome.status,
      ...(ok
        ? { result: outcome.result ?? '' }
        : { error: envelopeOf(outcome.errorCode, outcome.errorMessage ?? outcome.status) }),
      invocationId,
      startedAt: outcome.startedAt,
      finishedAt: outcome.completedAt,
    },
  };
}

/** Back from the checkpoint to what the executor resumes from. */
export function outcomeOfStep(step: StepRecord): OperationOutcome {
  const error = step.outcome.error;
  return {
    operation: operationPlan(step.plan.tool, step.plan.params, step.plan.reason),
    status: step.outcome.status,
    result: step.outcome.status === 'success' ? (step.outcome.result ?? '') : null,
    errorMessage: step.outcome.status === 'success' ? null : (error?.message ?? step.outcome.status),
    ...(error ? { errorCode: error.code } : {}),
    startedAt: step.outcome.startedAt,
    completedAt: step.outcome.finishedAt,
  };
}

/** The stored outcome of a finished pursuit. `limitHit` overrides (token budget is ours, not the executor's). */
export function goalOutcomeOf(
  outcome: PursuitOutcome,
  tokens: TokenUsage,
  override: { limitHit?: LimitHit; status?: GoalOutcome['status']; reason?: string } = {},
): GoalOutcome {
  const limitHit = override.limitHit ?? outcome.limitHit;
  const error = outcome.error ? envelopeOf(outcome.error.code, outcome.error.message) : undefined;
  return {
    status: override.status ?? outcome.status,
    response: outcome.response,
    reason: override.reason ?? outcome.reason,
    ...(outcome.resolution ? { resolutionStatus: outcome.resolution.status } : {}),
    ...(limitHit ? { limitHit } : {}),
    ...(error ? { error } : {}),
    steps: outcome.executedSteps.length,
    tokens,
    finishedAt: outcome.resolvedAt,
  };
}

/** An outcome for a goal that ended before (or outside) the pursuit: bad request, translation failure, give-up. */
export function earlyOutcome(
  record: GoalRecord,
  status: GoalOutcome['status'],
  reason: string,
  error?: ErrorEnvelope,
): GoalOutcome {
  return {
    status,
    response: '',
    reason,
    ...(error ? { error } : {}),
    steps: record.steps.length,
    tokens: record.usage,
    finishedAt: new Date().toISOString(),
  };
}
