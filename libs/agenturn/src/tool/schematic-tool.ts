import type { ExecutionContext } from '../execution/execution-context';
import type { ToolOutput } from './tool-output';

/** Behaviour hints shown to planners and UIs (MCP-style); they are not enforced. */
export interface ToolHints {
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
}

/** A tool the agent can call, described by a JSON Schema for its parameters. */
export interface SchematicTool {
  /** Unique in a catalog; also a NATS subject token for remote tools (no dots or spaces). */
  readonly name: string;
  readonly description: string;
  /** What must be true or known before calling it. */
  readonly prerequisites?: string;
  /** What the result text contains. */
  readonly outputDescription?: string;
  /** JSON Schema (an object schema) of `params`. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Deadline of one call; the executor aborts the call's signal when it passes. */
  readonly timeoutMs?: number;
  readonly hints?: ToolHints;
  /**
   * Runs the tool. Expected failures are returned as a `ToolOutput` error; a rejection is also turned into a failed
   * step by the executor. Should stop promptly when `signal` aborts (cancellation or deadline).
   */
  call(
    ctx: ExecutionContext,
    params: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<ToolOutput>;
}
