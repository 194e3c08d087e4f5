import { ModelUnavailableError } from '../errors/model-errors';
import { CancelledError } from '../errors/errors';
import { autonomousGoal, userGoal, type Goal } from '../goal/goal';
import type { GoalDecider } from '../goal/goal-decider';
import type { GoalTranslator } from '../goal/goal-translator';
import type { InteractionHistory } from '../goal/interaction-history';
import type { ActionDeterminer, DetermineActionInput } from '../pursuit/action-determiner';
import { resolution, type Decision } from '../pursuit/step';
import { ManualClock } from '../testing/manual-clock';
import { RecordingExecutionContext } from '../testing/recording-execution-context';
import { InProcessToolExecutor } from '../tool/in-process-tool-executor';
import { ToolCatalog } from '../tool/tool-catalog';
import { AutonomousAgent } from './autonomous-agent';
import { GoalExecutor } from './goal-executor';
import { RequestHandler } from './request-handler';

const history: InteractionHistory = { formatRecent: (n) => `last ${n}` };

function makeExecutor() {
  const seen: DetermineActionInput[] = [];
  const determiner: ActionDeterminer = {
    determineAction: async (input): Promise<Decision> => {
      seen.push(input);
      return resolution('success', `done: ${input.progress.goal.description}`, 'ok');
    },
  };
  const ctx = new RecordingExecutionContext();
  const tools = new ToolCatalog();
  const clock = new ManualClock();
  const executor = new GoalExecutor({
    beliefs: ['belief one'],
    tools,
    determiner,
    executor: new InProcessToolExecutor(tools),
    ctx,
    clock,
  });
  return { executor, seen, ctx, clock };
}

describe('RequestHandler', () => {
  it('translates the request with the beliefs and history, then pursues the goal', async () => {
    const { executor, seen, clock } = makeExecutor();
    const calls: unknown[][] = [];
    const translator: GoalTranslator = {
      translate: async (...args) => {
        calls.push(args);
        return userGoal('Create 余归', args[0]);
      },
    };
    const controller = new AbortController();
    const outcome = await new RequestHandler(translator, executor, { clock }).handleRequest('make 余归', {
      history,
      signal: controller.signal,
    });

    expect(calls[0]).toEqual(['make 余归', ['belief one'], history, controller.signal]);
    expect(outcome.status).toBe('completed');
    expect(outcome.response).toBe('done: Create 余归');
    expect(seen[0]?.history).toBe(history);
  });

  it('returns a failed outcome (not a rejection) when translation fails', async () => {
    const { executor, seen, ctx } = makeExecutor();
    const translator: GoalTranslator = {
      translate: () => Promise.reject(new ModelUnavailableError('provider down')),
    };
    const outcome = await new RequestHandler(translator, executor).handleRequest('make 余归');
    expect(outcome.status).toBe('failed');
    expect(outcome.goal.description).toBe('make 余归');
    expect(outcome.goal.source).toMatchObject({ kind: 'user', request: 'make 余归' });
    expect(outcome.error).toMatchObject({ code: 'MODEL_UNAVAILABLE', retryable: true });
    expect(outcome.executedSteps).toEqual([]);
    expect(seen).toHaveLength(0);
    expect(ctx.messages('error')[0]).toMatch(/could not translate/i);
  });

  it('returns a cancelled outcome when cancelled during translation', async () => {
    const { executor } = makeExecutor();
    const controller = new AbortController();
    const translator: GoalTranslator = {
      translate: async () => {
        controller.abort();
        throw new CancelledError();
      },
    };
    const outcome = await new RequestHandler(translator, executor).handleRequest('x', {
      signal: controller.signal,
    });
    expect(outcome.status).toBe('cancelled');
    expect(outcome.error).toBeUndefined();
  });
});

describe('AutonomousAgent', () => {
  it('returns null and says so when the decider has no goal', async () => {
    const { executor, seen, ctx } = makeExecutor();
    const decider: GoalDecider = { nextGoal: async () => null };
    expect(await new AutonomousAgent(decider, executor).pursueNextGoal()).toBeNull();
    expect(seen).toHaveLength(0);
    expect(ctx.messages('info')).toContain('No new goals to pursue');
  });

  it('pursues the decided goal', async () => {
    const { executor, ctx } = makeExecutor();
    const goal: Goal = autonomousGoal('Review the backlog', 'backlog');
    const args: unknown[][] = [];
    const decider: GoalDecider = {
      nextGoal: async (...a) => {
        args.push(a);
        return goal;
      },
    };
    const outcome = await new AutonomousAgent(decider, executor).pursueNextGoal({ history });
    expect(args[0]).toEqual([['belief one'], history, undefined]);
    expect(outcome?.goal).toBe(goal);
    expect(outcome?.status).toBe('completed');
    expect(ctx.messages('info')).toContain('Decided to pursue new goal: Review the backlog');
  });

  it('propagates a decider failure (there is no goal to report on)', async () => {
    const { executor } = makeExecutor();
    const decider: GoalDecider = { nextGoal: () => Promise.reject(new ModelUnavailableError('down')) };
    await expect(new AutonomousAgent(decider, executor).pursueNextGoal()).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
    });
  });
});
