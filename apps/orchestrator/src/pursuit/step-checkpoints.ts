import type { GoalExecutorHooks } from '@novelrag/agenturn';
import { type GoalRecord, ToolName } from '@novelrag/contracts';
import type { AgentRun } from '../agents';
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
  const progressFields = (): Partial<GoalRecord> => ({
    ...(options.run()?.checkpointData() ?? {}),
    usage: trace.usage,
  });
  const durably = async (save: () => Promise<unknown>): Promise<void> => {
    try {
      await save();
    } catch (err) {
      if (isTransientStoreError(err)) stop.stop({ kind: 'store_failure', error: err });
      throw err;
    }
  };
  return {
    onDecision: async (decision, progress) => {
      if (decision.kind === 'resolution') {
        const { status, response, reason } = decision;
        trace.emit({ kind: 'resolution', status, response, reason });
        return;
      }
      const index = progress.executedSteps.length;
      if (!ToolName.safeParse(decision.tool).success) return; // refused by the executor, never dispatched
      const plan = {
        tool: decision.tool,
        params: toJsonObject(decision.parameters),
        reason: decision.reason,
      };
      await durably(() =>
        checkpoint.write(() => ({
          inFlight: {
            index,
            plan,
            invocationId: invocationIdOf(options.goalId, index),
            dispatchedAt: new Date().toISOString(),
          },
          ...progressFields(),
        })),
      );
    },
    onStep: async (progress, outcome) => {
      // A step cut short because the goal is handed back is not an outcome: it is re-sent on resume.
      if (outcome.status === 'cancelled' && handsBack(stop.reason)) return;
      const index = progress.executedSteps.length - 1;
      trace.step = index + 1;
      const step = stepRecordOf(index, outcome, invocationIdOf(options.goalId, index));
      await durably(async () => {
        const saved = await checkpoint.write((current) => ({
          steps: [...current.steps.filter((s) => s.index < index), step],
          inFlight: undefined,
          ...progressFields(),
        }));
        const workspace = options.run()?.workspace();
        if (workspace) await options.threads.saveWorkspace(saved.threadId, workspace);
        if (saved.cancelRequested) stop.stop({ kind: 'cancelled' });
      });
    },
  };
}
