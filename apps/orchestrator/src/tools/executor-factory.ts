import type { NatsConnection } from '@nats-io/transport-node';
import type { ToolExecutor } from '@novelrag/agenturn';
import type { ContextLogger } from '@novelrag/bus';
import type { ToolInvocation, ToolWorkspace } from '@novelrag/contracts';
import type { GoalTrace } from '../pursuit/trace';
import { ClaimWatch } from './claim-watch';
import { RemoteToolExecutor, type RemoteToolExecutorOptions } from './remote-tool-executor';
import type { ToolRegistry } from './tool-registry';

/** What the tool calls of one pursuit share. */
export interface ToolCallScope {
  readonly goalId: string;
  readonly threadId: string;
  readonly lang: string;
  /** Index of the next step (continues after resumed steps). */
  readonly firstStep: number;
  readonly beliefs: readonly string[];
  /** The agent's context when it decided the step (sent so content tools read what it read). */
  readonly workspace: () => ToolWorkspace | undefined;
  readonly trace: GoalTrace;
  /** Tokens the goal has left under its budget (undefined: no budget). */
  readonly tokensLeft?: () => number | undefined;
}

/** A pursuit's tool executor, which also tells whether an invocation runs now (a tool's question must come from one). */
export interface GoalToolExecutor extends ToolExecutor {
  running(invocationId: string): ToolInvocation | undefined;
}

/** Builds the tool executor of one pursuit (injected into the pursuit, so it never constructs a transport itself). */
export type ToolExecutorFactory = (scope: ToolCallScope) => GoalToolExecutor;

export interface RemoteExecutorSettings {
  readonly toolTimeoutMs: number;
  /** How long past its lease a runner's claim on a tool call is still trusted (see ClaimWatch). */
  readonly toolClaimGraceMs?: number;
}

/**
 * Tool calls over NATS to whichever runner serves the tool, traced, with lost calls noticed by a ClaimWatch; a tool's
 * messages and questions reach the pursuit's ExecutionContext. Unreadable ones are logged by subject and code only.
 */
export function remoteToolExecutors(
  nc: NatsConnection,
  tools: ToolRegistry,
  settings: RemoteExecutorSettings,
  log?: Pick<ContextLogger, 'warn'>,
): ToolExecutorFactory {
  return (scope) =>
    new RemoteToolExecutor(nc, {
      goalId: scope.goalId,
      threadId: scope.threadId,
      lang: scope.lang,
      firstStep: scope.firstStep,
      defaultTimeoutMs: settings.toolTimeoutMs,
      timeoutOf: (tool) => tools.timeoutOf(tool),
      idempotentOf: (tool) => tools.catalog().get(tool)?.hints?.idempotent,
      onDropped: (subject, issues) =>
        log?.warn('dropped an invalid tool message', { subject, code: 'VALIDATION_FAILED', issues }),
      workspace: scope.workspace,
      beliefs: scope.beliefs,
      ...(scope.tokensLeft ? { tokensLeft: scope.tokensLeft } : {}),
      ...dispatchTracing(scope.trace, tools),
      claimWatch: new ClaimWatch(nc, {
        ...(settings.toolClaimGraceMs === undefined ? {} : { graceMs: settings.toolClaimGraceMs }),
        served: (tool) => tools.served(tool),
        claimsExpected: (tool) => tools.claimsExpected(tool),
      }),
    });
}

/** The executor's dispatch callbacks: `operation.dispatched` / `operation.outcome`, and no-responders → unavailable. */
function dispatchTracing(
  trace: GoalTrace,
  tools: ToolRegistry,
): Pick<RemoteToolExecutorOptions, 'onDispatch' | 'onOutcome' | 'onModelCall'> {
  return {
    // A tool's model calls are the goal's too: traced as llm.call and summed into its usage (the token budget).
    onModelCall: (inv, call) =>
      trace.llmCall({
        purpose: call.purpose,
        model: call.model,
        promptTokens: call.promptTokens,
        completionTokens: call.completionTokens,
        latencyMs: call.latencyMs,
        attempts: call.attempts,
        ok: call.ok,
        ...(call.error ? { error: call.error } : {}),
        invocationId: inv.invocationId,
      }),
    onDispatch: (inv, reason) =>
      trace.emit({
        kind: 'operation.dispatched',
        invocationId: inv.invocationId,
        tool: inv.tool,
        params: inv.params,
        reason,
        deadline: inv.deadline,
        attempt: inv.attempt ?? 1,
        step: inv.step,
      }),
    onOutcome: (r) => {
      if (r.error?.code === 'NO_RESPONDERS') tools.markUnavailable(r.invocation.tool);
      trace.emit({
        kind: 'operation.outcome',
        invocationId: r.invocation.invocationId,
        tool: r.invocation.tool,
        status: r.outcome.status,
        ...(r.outcome.status === 'success' ? { result: r.outcome.result ?? '' } : {}),
        ...(r.error ? { error: r.error } : {}),
        durationMs: Math.round(r.durationMs),
        ...(r.replayed ? { replayed: true } : {}),
        step: r.invocation.step,
      });
    },
  };
}
