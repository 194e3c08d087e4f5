import { isAgenturnError, type ToolOutput as AgentToolOutput } from '@novelrag/agenturn';
import {
  ErrorCode,
  type ErrorEnvelope,
  MAX_TOOL_RESULT_CHARS,
  type ToolOutput,
  errorEnvelope,
} from '@novelrag/contracts';

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
  return errorOutput(errorEnvelope(code.success ? code.data : 'TOOL_FAILED', out.errorMessage), durationMs);
}

/** Anything a tool threw: coded errors keep their code (CancelledError → CANCELLED), the rest is TOOL_FAILED. */
export function thrownOutput(err: unknown, toolName: string, durationMs: number): ToolOutput {
  if (isAgenturnError(err)) {
    const code = ErrorCode.safeParse(err.code);
    if (code.success && code.data !== 'INTERNAL') {
      return errorOutput({ ...errorEnvelope(code.data, err.message), retryable: err.retryable }, durationMs);
    }
  }
  const message = err instanceof Error ? err.message || err.name : String(err);
  return errorOutput(errorEnvelope('TOOL_FAILED', `${toolName} failed: ${message}`), durationMs);
}
