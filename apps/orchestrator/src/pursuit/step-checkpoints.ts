import type { GoalExecutorHooks, OperationOutcome, OperationPlan } from '@novelrag/agenturn';
import { type GoalRecord, ToolName } from '@novelrag/contracts';
import type { AgentCheckpoints, AgentRun } from '../agents';
import type { ThreadStore } from '@novelrag/bus';
import { invocationIdOf } from '../tools/remote-tool-executor';
import { type GoalCheckpoint, isTransientStoreError } from './checkpoint';
import { stepRecordOf, toJsonObject } from './records';
import { type PursuitStop, handsBack } from './stop';
import type { GoalTrace } from './trace';

export interface StepCheckpointsOptions {
  readonly goalId: string;
  readonly checkpoint: GoalCheckpoint;
  readonly trace: GoalTrace;
  readonly threads: Pick<ThreadStore, 'saveWorkspace'>;
  readonly stop: PursuitStop;
  /** The agent pursuing the goal (its checkpoint data and thread workspace). */
  readonly run: () => AgentRun | undefined;
}

/**
 * The durability hooks of a pursuit: a decided step is checkpointed in flight before it is dispatched (so a crash
 * re-sends it under the same invocation id), an executed one as a step (with the agent's checkpoint data and the
 * thread workspace). A transient store error stops the pursuit with `store_failure` (handed back, resumed from the
 * last checkpoint); any failure rejects, so the executor stops rather than outrun its checkpoint.
 */
export function stepCheckpoints(options: StepCheckpointsOptions): GoalExecutorHooks {
  const { checkpoint, trace, stop } = options;
  const progressFields = () => progressFieldsOf(options);
  const durably = (save: () => Promise<unknown>) => durablyFor(stop, save);
  return {
    onDecision: async (decision, progress) => {
      if (decision.kind === 'resolution') {
        const { status, response, reason } = decision;
        trace.emit({ kind: 'resolution', status, response, reason });
        return;
      }
      const index = progress.executedSteps.length;
      if (!ToolName.safeParse(decision.tool).success) return; // refused by the executor, never dispatched
      const planOf = (p: OperationPlan) => ({
        tool: p.tool,
        params: toJsonObject(p.parameters),
        reason: p.reason,
      });
      const group = decision.group ?? [];
      await durably(() =>
        checkpoint.write(() => ({
          inFlight: {
            index,
            plan: planOf(decision),
            invocationId: invocationIdOf(options.goalId, index),
            dispatchedAt: new Date().toISOString(),
            ...(group.length > 0 ? { group: group.map(planOf) } : {}),
          },
          ...progressFields(),
        })),
      );
    },
    onStep: (progress, outcome) => recordSteps(progress.executedSteps.length - 1, [outcome]),
    onSteps: (progress, outcomes) => recordSteps(progress.executedSteps.length - outcomes.length, outcomes),
  };

  /** Steps from `first` on, in one write (a group of calls decided together is recorded all at once). */
  async function recordSteps(first: number, outcomes: readonly OperationOutcome[]): Promise<void> {
    // A step cut short because the goal is handed back is not an outcome: the group is re-sent on resume.
    if (outcomes.some((o) => o.status === 'cancelled') && handsBack(stop.reason)) return;
    trace.step = first + outcomes.length;
    const records = outcomes.map((outcome, i) =>
      stepRecordOf(first + i, outcome, invocationIdOf(options.goalId, first + i)),
    );
    await durably(async () => {
      const saved = await checkpoint.write((current) => ({
        steps: [...current.steps.filter((s) => s.index < first), ...records],
        inFlight: undefined,
        ...progressFields(),
      }));
      const workspace = options.run()?.workspace();
      if (workspace) await options.threads.saveWorkspace(saved.threadId, workspace);
      if (saved.cancelRequested) stop.stop({ kind: 'cancelled' });
    });
  }
}

/** The agent's checkpoint data and the token usage, written with every checkpoint. */
function progressFieldsOf(options: StepCheckpointsOptions): Partial<GoalRecord> {
  return { ...(options.run()?.checkpointData() ?? {}), usage: options.trace.usage };
}

/** A transient store error stops the pursuit with `store_failure` (handed back); every failure rejects. */
async function durablyFor(stop: PursuitStop, save: () => Promise<unknown>): Promise<void> {
  try {
    await save();
  } catch (err) {
    if (isTransientStoreError(err)) stop.stop({ kind: 'store_failure', error: err });
    throw err;
  }
}

/**
 * The checkpoints of a kind with its own state machine: its state on demand, and a group of steps executed together
 * in one write (so a crash leaves none or all of them recorded; their invocations are re-sent under the same ids).
 */
export function agentCheckpoints(options: StepCheckpointsOptions): AgentCheckpoints {
  const { checkpoint, trace, stop } = options;
  return {
    save: () => durablyFor(stop, () => checkpoint.write(() => progressFieldsOf(options))),
    steps: (executed, group) => {
      const first = executed.length;
      const records = group.map((outcome, i) =>
        stepRecordOf(first + i, outcome, invocationIdOf(options.goalId, first + i)),
      );
      trace.step = first + group.length;
      return durablyFor(stop, async () => {
        const saved = await checkpoint.write((current) => ({
          steps: [...current.steps.filter((s) => s.index < first), ...records],
          inFlight: undefined,
          ...progressFieldsOf(options),
        }));
        if (saved.cancelRequested) stop.stop({ kind: 'cancelled' });
      });
    },
  };
}
