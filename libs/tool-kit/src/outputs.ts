import { isAgenturnError, type ToolOutput as AgentToolOutput } from '@novelrag/agenturn';
import {
  ErrorCode,
  type ErrorEnvelope,
  MAX_TOOL_RESULT_CHARS,
  ToolOutput,
  describeIssues,
  errorEnvelope,
} from '@novelrag/contracts';

/**
 * Longest error message a tool may put on the wire (and in its result record). Messages that quote a whole upstream
 * body would otherwise break the `ToolOutput` contract (MAX_TEXT_CHARS) or exceed one NATS message, and then the
 * result can neither be replayed nor answered. The start of the message is kept: it usually names the failure.
 */
export const MAX_ERROR_MESSAGE_CHARS = 4_000;
/** Longest JSON form of an error's `details`; larger details are replaced by a note saying so. */
export const MAX_ERROR_DETAILS_CHARS = 4_000;

export function errorOutput(error: ErrorEnvelope, durationMs?: number): ToolOutput {
  return { type: 'error', error, ...(durationMs !== undefined ? { durationMs } : {}) };
}

/** A tool's own output on the wire: results capped, error codes kept when they are contract codes. */
export function toWireOutput(out: AgentToolOutput, maxChars: number, durationMs: number): ToolOutput {
  if (out.type === 'result') {
    const cap = Math.min(maxChars, MAX_TOOL_RESULT_CHARS);
    if (out.result.length > cap) {
      return errorOutput(
        errorEnvelope(
          'TOOL_OUTPUT_TOO_LARGE',
          `the result has ${out.result.length} characters (limit ${cap})`,
          {
            chars: out.result.length,
            limit: cap,
          },
        ),
        durationMs,
      );
    }
    return { type: 'result', result: out.result, durationMs };
  }
  const code = ErrorCode.safeParse(out.code);
  return boundedError(errorEnvelope(code.success ? code.data : 'TOOL_FAILED', out.errorMessage), durationMs);
}

/** Anything a tool threw: coded errors keep their code (CancelledError → CANCELLED), the rest is TOOL_FAILED. */
export function thrownOutput(err: unknown, toolName: string, durationMs: number): ToolOutput {
  if (isAgenturnError(err)) {
    const code = ErrorCode.safeParse(err.code);
    if (code.success && code.data !== 'INTERNAL') {
      return boundedError({ ...errorEnvelope(code.data, err.message), retryable: err.retryable }, durationMs);
    }
  }
  return boundedError(errorEnvelope('TOOL_FAILED', `${toolName} failed: ${textOfThrown(err)}`), durationMs);
}

/**
 * What a thrown value says, for messages and logs. Never throws itself: `String` does for an object without a
 * prototype, and a tool's throw must end as its TOOL_FAILED, not as a failure of the runner (a retryable UNAVAILABLE
 * that would run the tool again).
 */
export function textOfThrown(err: unknown): string {
  try {
    return err instanceof Error ? err.message || err.name : String(err);
  } catch {
    return Object.prototype.toString.call(err);
  }
}

/**
 * The output as it may be recorded and answered: anything outside the `ToolOutput` contract (which a retry could not
 * read back) becomes a small TOOL_FAILED naming what was wrong.
 */
export function contractOutput(output: ToolOutput): ToolOutput {
  const parsed = ToolOutput.safeParse(output);
  if (parsed.success) return output;
  return errorOutput(
    errorEnvelope(
      'TOOL_FAILED',
      clipText(`the tool's output does not match the ToolOutput contract: ${describeIssues(parsed.error)}`),
    ),
    Number.isInteger(output.durationMs) && (output.durationMs ?? -1) >= 0 ? output.durationMs : undefined,
  );
}

function boundedError(error: ErrorEnvelope, durationMs: number): ToolOutput {
  const bounded: ErrorEnvelope = { ...error, message: clipText(error.message) };
  if (error.details !== undefined) {
    const chars = JSON.stringify(error.details).length;
    if (chars > MAX_ERROR_DETAILS_CHARS) bounded.details = { clipped: true, chars };
  }
  return errorOutput(bounded, durationMs);
}

function clipText(text: string): string {
  if (text.length <= MAX_ERROR_MESSAGE_CHARS) return text;
  const note = ` … [clipped: the message had ${text.length} characters]`;
  return `${text.slice(0, MAX_ERROR_MESSAGE_CHARS - note.length)}${note}`;
}
