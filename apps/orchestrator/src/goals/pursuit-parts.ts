import type { ActionDeterminer, Decision, DetermineActionInput, OperationPlan } from '@novelrag/agenturn';
import type { RemoteToolExecutorOptions } from '../tools/remote-tool-executor';
import type { ToolRegistry } from '../tools/tool-registry';
import type { GoalTrace } from './goal-trace';

/** Plays the checkpointed in-flight step first (same plan, same invocation id), then asks the loop. */
export class ResumingDeterminer implements ActionDeterminer {
  constructor(
    private pending: OperationPlan | undefined,
    private readonly inner: ActionDeterminer,
  ) {}
  determineAction(input: DetermineActionInput): Promise<Decision> {
    const pending = this.pending;
    this.pending = undefined;
    return pending ? Promise.resolve(pending) : this.inner.determineAction(input);
  }
}

export class Suspended extends Error {
  override readonly name = 'Suspended';
}

/** The executor's dispatch callbacks: `operation.dispatched` / `operation.outcome`, and no-responders → unavailable. */
export function dispatchTracing(
  trace: GoalTrace,
  tools: ToolRegistry,
): Pick<RemoteToolExecutorOptions, 'onDispatch' | 'onOutcome'> {
  return {
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
