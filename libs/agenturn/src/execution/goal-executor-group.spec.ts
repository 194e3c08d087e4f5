import { userGoal } from '../goal/goal';
import type { ActionDeterminer, DetermineActionInput } from '../pursuit/action-determiner';
import type { PursuitProgress } from '../pursuit/pursuit';
import {
  type Decision,
  type OperationOutcome,
  type OperationPlan,
  operationPlan,
  resolution,
} from '../pursuit/step';
import { deferred } from '../testing/deferred';
import { RecordingExecutionContext } from '../testing/recording-execution-context';
import { ToolCatalog } from '../tool/tool-catalog';
import type { ToolExecutor } from '../tool/tool-executor';
import { GoalExecutor } from './goal-executor';

const goal = userGoal('Look two things up', 'look up A and B', new Date(Date.UTC(2026, 0, 1)));

/** Executes a call only once every call of the group has been started: proves they run at the same time. */
class BarrierExecutor implements ToolExecutor {
  readonly started: string[] = [];
  private readonly all = deferred<void>();
  constructor(private readonly expected: number) {}
  async execute(plan: OperationPlan): Promise<OperationOutcome> {
    this.started.push(plan.tool);
    if (this.started.length === this.expected) this.all.resolve();
    await this.all.promise;
    const at = new Date(0).toISOString();
    return {
      operation: plan,
      status: 'success',
      result: `${plan.tool} done`,
      errorMessage: null,
      startedAt: at,
      completedAt: at,
    };
  }
}

function run(first: Decision, maxSteps = 10) {
  const seen: DetermineActionInput[] = [];
  const scripted: Decision[] = [first, resolution('success', 'both found', 'done')];
  const determiner: ActionDeterminer = {
    determineAction: (input) => {
      seen.push(input);
      return Promise.resolve(scripted.shift()!);
    },
  };
  const groups: Array<readonly OperationOutcome[]> = [];
  const single: number[] = [];
  const executor = new BarrierExecutor(2);
  const goalExecutor = new GoalExecutor({
    beliefs: [],
    tools: new ToolCatalog([]),
    determiner,
    executor,
    ctx: new RecordingExecutionContext(),
    limits: { maxSteps },
    hooks: {
      onStep: (progress: PursuitProgress) => {
        single.push(progress.executedSteps.length);
        return Promise.resolve();
      },
      onSteps: (_progress, outcomes) => {
        groups.push(outcomes);
        return Promise.resolve();
      },
    },
  });
  return { outcome: goalExecutor.handleGoal(goal), seen, groups, single, executor };
}

describe('GoalExecutor: a group of calls decided together', () => {
  const group = {
    ...operationPlan('lookup_a', { q: 'A' }, 'need A'),
    group: [operationPlan('lookup_b', { q: 'B' }, 'need B')],
  };

  it('runs them at the same time, checkpoints them in one group, and shows both outcomes to the next decision', async () => {
    const t = run(group);
    const outcome = await t.outcome; // would never settle if the calls ran one after the other
    expect(outcome.status).toBe('completed');
    expect(t.executor.started).toEqual(['lookup_a', 'lookup_b']);
    expect(t.groups).toHaveLength(1);
    expect(t.single).toEqual([]);
    const next = t.seen[1]!.progress.executedSteps;
    expect(next.map((s) => [s.operation.tool, s.result])).toEqual([
      ['lookup_a', 'lookup_a done'],
      ['lookup_b', 'lookup_b done'],
    ]);
    expect(next[0]!.operation).not.toHaveProperty('group');
  });

  it('cuts the group to what the step budget leaves', async () => {
    const t = run({ ...group, group: [...group.group, operationPlan('lookup_c', {}, 'need C')] }, 2);
    const outcome = await t.outcome;
    expect(t.executor.started).toEqual(['lookup_a', 'lookup_b']);
    expect(outcome).toMatchObject({ status: 'abandoned', limitHit: 'max_steps' });
  });
});
