import type {
  ExecutionContext,
  SchematicTool,
  ToolHints,
  ToolOutput as AgentToolOutput,
} from '@novelrag/agenturn';
import type { ModelCallUsage, ToolInvocation } from '@novelrag/contracts';
import type { ToolNotes } from './invocation-notes';

/** What a hosted tool sees while it runs: the distributed ExecutionContext plus the invocation that started it. */
export interface ToolContext extends ExecutionContext {
  /** The parsed invocation (goal, step, language, the planner's workspace and beliefs). */
  readonly invocation: ToolInvocation;
  /** Epoch ms by which the tool must have answered (the invocation's deadline capped by the tool's own timeout). */
  readonly deadline: number;
  /**
   * Reports a model call the tool made (usage only, never content): the goal counts its tokens against its token
   * budget and traces it. A tool that calls a model reports each call; absent where nobody counts (in-process tests).
   */
  modelCall?(usage: ToolModelUsage): void;
  /**
   * Durable notes of this invocation, kept with its at-most-once record: what the tool decided before acting (a write
   * tool's confirmed operations), which a retry after a runner crash reads back to act on that same decision. Absent
   * when the call runs without at-most-once (no JetStream KV, read-only or idempotent tools, in-process tests).
   */
  readonly notes?: ToolNotes;
}

/** One model call of a tool, as reported to its goal. */
export type ToolModelUsage = Omit<ModelCallUsage, 'error'>;

/**
 * A tool served on the bus: a `SchematicTool` (its name is the endpoint name and subject token, `inputSchema` is
 * validated before `call` runs) whose context also carries the invocation, so any SchematicTool can be hosted as is.
 * `call` returns a result or an error output; a rejection becomes a TOOL_FAILED error output (or the error's own code
 * when it carries a known one), never a crashed runner.
 */
export interface HostedTool extends Omit<SchematicTool, 'call'> {
  call(
    ctx: ToolContext,
    params: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<AgentToolOutput>;
}

/** The few lines a third-party tool needs: a handler returning text (or a ToolOutput for errors). */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly prerequisites?: string;
  readonly outputDescription?: string;
  readonly timeoutMs?: number;
  /** Defaults: not read-only, not destructive, not idempotent (nothing promised). */
  readonly hints?: Partial<ToolHints>;
  readonly handler: (
    params: Readonly<Record<string, unknown>>,
    ctx: ToolContext,
    signal: AbortSignal,
  ) => Promise<string | AgentToolOutput> | string | AgentToolOutput;
}

/** Turns a `ToolSpec` into a `HostedTool`. */
export function defineTool(spec: ToolSpec): HostedTool {
  const hints: ToolHints = {
    readOnly: spec.hints?.readOnly ?? false,
    destructive: spec.hints?.destructive ?? false,
    idempotent: spec.hints?.idempotent ?? false,
  };
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    hints,
    ...(spec.prerequisites !== undefined ? { prerequisites: spec.prerequisites } : {}),
    ...(spec.outputDescription !== undefined ? { outputDescription: spec.outputDescription } : {}),
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    async call(ctx, params, signal) {
      const out = await spec.handler(params, ctx, signal);
      return typeof out === 'string' ? { type: 'result', result: out } : out;
    },
  };
}
