import { ModelOutputError } from '../errors/model-errors';
import { CancelledError } from '../errors/errors';
import { userGoal } from '../goal/goal';
import type { ActionDeterminer, DetermineActionInput } from '../pursuit/action-determiner';
import type { PursuitProgress } from '../pursuit/pursuit';
import { operationPlan, resolution, type Decision, type OperationOutcome } from '../pursuit/step';
import { deferred } from '../testing/deferred';
import { fakeTool } from '../testing/fake-tool';
import { ManualClock } from '../testing/manual-clock';
import { RecordingExecutionContext } from '../testing/recording-execution-context';
import { InProcessToolExecutor } from '../tool/in-process-tool-executor';
import { ToolCatalog } from '../tool/tool-catalog';
import type { SchematicTool } from '../tool/schematic-tool';
import { GoalExecutor, type GoalExecutorOptions } from './goal-executor';

type Step = Decision | Error | ((input: DetermineActionInput) => Decision | Promise<Decision>);

/** A determiner that replays decisions and records what it was shown. */
class ScriptedDeterminer implements ActionDeterminer {
  readonly inputs: DetermineActionInput[] = [];
  readonly stepsSeen: number[] = [];
  constructor(private readonly steps: Step[]) {}
  async determineAction(input: DetermineActionInput): Promise<Decision> {
    this.inputs.push(input);
    this.stepsSeen.push(input.progress.executedSteps.length);
    const step = this.steps.shift();
    if (step === undefined) throw new Error('determiner script exhausted');
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(input) : step;
  }
}

const goal = userGoal(
  'Create a protagonist',
  'create a protagonist named 余归',
  new Date(Date.UTC(2026, 0, 1)),
);

function setup(steps: Step[], tools: SchematicTool[], extra: Partial<GoalExecutorOptions> = {}) {
  const catalog = new ToolCatalog(tools);
  const clock = new ManualClock();
  const ctx = new RecordingExecutionContext();
  const determiner = new ScriptedDeterminer(steps);
  const executor = new GoalExecutor({
    beliefs: ['The novel is a xianxia story'],
    tools: catalog,
    determiner,
    executor: new InProcessToolExecutor(catalog, { clock }),
    ctx,
    clock,
    ...extra,
  });
  return { executor, determiner, ctx, clock, catalog };
}

const plan = (tool: string, reason = `use ${tool}`, parameters: Record<string, unknown> = {}) =>
  operationPlan(tool, parameters, reason);

describe('GoalExecutor.handleGoal', () => {
  it('executes a tool, feeds the result back and completes on a success resolution', async () => {
    const create = fakeTool({ name: 'create', result: (p) => `created ${String(p['name'])}` });
    const { executor, determiner, ctx } = setup(
      [plan('create', 'make her', { name: '余归' }), resolution('success', 'Created 余归.', 'done')],
      [create],
    );
    const outcome = await executor.handleGoal(goal);

    expect(outcome.status).toBe('completed');
    expect(outcome.response).toBe('Created 余归.');
    expect(outcome.reason).toBe('done');
    expect(outcome.resolution).toEqual(resolution('success', 'Created 余归.', 'done'));
    expect(outcome.executedSteps).toHaveLength(1);
    expect(outcome.executedSteps[0]).toMatchObject({
      status: 'success',
      result: 'created 余归',
      errorMessage: null,
    });
    expect(create.calls[0]?.params).toEqual({ name: '余归' });
    // the second decision saw the first outcome
    expect(determiner.inputs[1]?.progress.executedSteps[0]?.result).toBe('created 余归');
    expect(determiner.inputs[0]?.beliefs).toEqual(['The novel is a xianxia story']);
    expect(ctx.messages('info')).toContain('✓ Completed: make her');
  });

  it('feeds a tool error output back as a failed step and goes on', async () => {
    const tool = fakeTool({ name: 'write', error: { message: 'element exists', code: 'ALREADY_EXISTS' } });
    const { executor, determiner, ctx } = setup(
      [plan('write'), resolution('failed', 'could not', 'exists')],
      [tool],
    );
    const outcome = await executor.handleGoal(goal);

    expect(outcome.status).toBe('failed');
    expect(outcome.resolution?.status).toBe('failed');
    expect(outcome.error).toBeUndefined();
    expect(determiner.inputs[1]?.progress.executedSteps[0]).toMatchObject({
      status: 'failed',
      result: null,
      errorMessage: 'element exists',
      errorCode: 'ALREADY_EXISTS',
    });
    expect(ctx.messages('error')).toContain('✗ Failed: use write - element exists');
  });

  it('records an unknown tool as a failed step with TOOL_NOT_FOUND', async () => {
    const { executor } = setup([plan('nope'), resolution('success', 'ok', 'ok')], []);
    const outcome = await executor.handleGoal(goal);
    expect(outcome.status).toBe('completed');
    expect(outcome.executedSteps[0]).toMatchObject({
      status: 'failed',
      errorMessage: 'Tool nope not found',
      errorCode: 'TOOL_NOT_FOUND',
    });
  });

  it('records a thrown tool error as a failed step with its message', async () => {
    const tool = fakeTool({ name: 'boom', throws: new Error('disk on fire') });
    const { executor, determiner } = setup(
      [plan('boom'), resolution('incomplete', 'partial', 'gave up')],
      [tool],
    );
    const outcome = await executor.handleGoal(goal);
    expect(determiner.inputs).toHaveLength(2);
    expect(outcome.executedSteps[0]).toMatchObject({
      status: 'failed',
      errorMessage: 'disk on fire',
      errorCode: 'TOOL_FAILED',
    });
    expect(outcome.status).toBe('abandoned');
  });

  it('turns a thrown determiner error into a failed outcome carrying the error code and message', async () => {
    const tool = fakeTool({ name: 'read' });
    const modelError = new ModelOutputError({
      issues: [{ path: 'decision', message: 'Required' }],
      rawOutputLength: 12,
      attempts: 3,
    });
    const { executor, ctx } = setup([plan('read'), modelError], [tool]);
    const outcome = await executor.handleGoal(goal);

    expect(outcome.status).toBe('failed');
    expect(outcome.resolution).toBeNull();
    expect(outcome.error).toMatchObject({ code: 'MODEL_OUTPUT_INVALID', retryable: false });
    expect(outcome.reason).toContain('MODEL_OUTPUT_INVALID');
    expect(outcome.executedSteps).toHaveLength(1);
    expect(outcome.response).toContain('1 step(s) executed');
    expect(ctx.messages('error').some((m) => m.startsWith('Goal pursuit failed with error'))).toBe(true);
  });

  it('wraps a non-agenturn determiner error as INTERNAL', async () => {
    const { executor } = setup([new TypeError('bad state')], []);
    const outcome = await executor.handleGoal(goal);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toEqual({
      code: 'INTERNAL',
      message: 'bad state',
      retryable: false,
      details: { name: 'TypeError' },
    });
  });

  it('fails cleanly when the determiner returns something that is not a decision', async () => {
    const bogus = { tool: 'x' } as unknown as Decision;
    const { executor } = setup([bogus], []);
    const outcome = await executor.handleGoal(goal);
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.message).toMatch(/neither an OperationPlan nor a Resolution/);
  });

  it.each([
    ['success', 'completed'],
    ['failed', 'failed'],
    ['incomplete', 'abandoned'],
    ['abandoned', 'abandoned'],
  ] as const)('maps resolution status %s to pursuit status %s', async (resolutionStatus, pursuitStatus) => {
    const { executor } = setup([resolution(resolutionStatus, 'answer', 'why')], []);
    const outcome = await executor.handleGoal(goal);
    expect(outcome.status).toBe(pursuitStatus);
    expect(outcome.resolution?.status).toBe(resolutionStatus);
    expect(outcome.response).toBe('answer');
    expect(outcome.limitHit).toBeUndefined();
  });

  it('abandons after maxSteps executed steps, naming the limit and summarising the steps', async () => {
    const tool = fakeTool({ name: 'loop', result: 'again' });
    const { executor, determiner } = setup([plan('loop'), plan('loop'), plan('loop')], [tool], {
      limits: { maxSteps: 2 },
    });
    const outcome = await executor.handleGoal(goal);

    expect(outcome.status).toBe('abandoned');
    expect(outcome.limitHit).toBe('max_steps');
    expect(outcome.reason).toMatch(/Step limit reached: 2 steps executed \(limit 2\)/);
    expect(outcome.executedSteps).toHaveLength(2);
    expect(tool.calls).toHaveLength(2);
    expect(determiner.inputs).toHaveLength(2);
    expect(outcome.response).toContain('2 step(s) executed');
    expect(outcome.response).toContain('✓ loop: use loop');
    expect(outcome.resolution).toBeNull();
  });

  it('abandons when the wall clock runs out, checked before deciding again', async () => {
    const ref: { clock?: ManualClock } = {};
    const tool = fakeTool({
      name: 'slow',
      result: () => {
        ref.clock?.advance(61_000);
        return 'done slowly';
      },
    });
    const ctx = setup([plan('slow'), plan('slow')], [tool], { limits: { wallClockMs: 60_000 } });
    ref.clock = ctx.clock;
    const outcome = await ctx.executor.handleGoal(goal);

    expect(outcome.status).toBe('abandoned');
    expect(outcome.limitHit).toBe('wall_clock');
    expect(outcome.reason).toMatch(/Wall-clock limit reached: 61000 ms elapsed \(limit 60000 ms\)/);
    expect(outcome.executedSteps).toHaveLength(1);
    expect(ctx.determiner.inputs).toHaveLength(1);
  });

  it('checks the wall clock again between the decision and the execution', async () => {
    const tool = fakeTool({ name: 't' });
    const ref: { clock?: ManualClock } = {};
    const ctx = setup(
      [
        () => {
          ref.clock?.advance(5_000);
          return plan('t');
        },
      ],
      [tool],
      { limits: { wallClockMs: 1_000 } },
    );
    ref.clock = ctx.clock;
    const outcome = await ctx.executor.handleGoal(goal);
    expect(outcome.limitHit).toBe('wall_clock');
    expect(tool.calls).toHaveLength(0);
  });

  it('keeps the original start time of a resumed pursuit for the wall-clock budget', async () => {
    const { executor, clock, determiner } = setup([resolution('success', 'x', 'y')], [], {
      limits: { wallClockMs: 1_000 },
    });
    const outcome = await executor.handleGoal(goal, { startedAt: clock.now() - 2_000 });
    expect(outcome.limitHit).toBe('wall_clock');
    expect(determiner.inputs).toHaveLength(0);
  });

  it('is cancelled before deciding when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { executor, determiner } = setup([resolution('success', 'x', 'y')], []);
    const outcome = await executor.handleGoal(goal, { signal: controller.signal });
    expect(outcome.status).toBe('cancelled');
    expect(outcome.response).toBe('The pursuit was cancelled. No steps were executed.');
    expect(determiner.inputs).toHaveLength(0);
  });

  it('is cancelled between the decision and the execution without calling the tool', async () => {
    const controller = new AbortController();
    const tool = fakeTool({ name: 't' });
    const { executor } = setup(
      [
        () => {
          controller.abort();
          return plan('t');
        },
      ],
      [tool],
    );
    const outcome = await executor.handleGoal(goal, { signal: controller.signal });
    expect(outcome.status).toBe('cancelled');
    expect(tool.calls).toHaveLength(0);
  });

  it('passes the signal to a running tool and ends cancelled when it aborts mid-call', async () => {
    const controller = new AbortController();
    const never = deferred();
    const tool = fakeTool({ name: 'wait', until: never.promise });
    const { executor, determiner } = setup([plan('wait'), resolution('success', 'x', 'y')], [tool]);
    const running = executor.handleGoal(goal, { signal: controller.signal });
    const call = await tool.whenCalled();
    expect(call.signal.aborted).toBe(false);
    controller.abort();
    const outcome = await running;

    expect(call.signal.aborted).toBe(true);
    expect(outcome.status).toBe('cancelled');
    expect(outcome.executedSteps).toHaveLength(1);
    expect(outcome.executedSteps[0]?.status).toBe('cancelled');
    expect(determiner.inputs).toHaveLength(1);
  });

  it('ends cancelled, not failed, when the determiner rejects because of the abort', async () => {
    const controller = new AbortController();
    const { executor } = setup(
      [
        () => {
          controller.abort();
          throw new CancelledError('model call cancelled');
        },
      ],
      [],
    );
    const outcome = await executor.handleGoal(goal, { signal: controller.signal });
    expect(outcome.status).toBe('cancelled');
    expect(outcome.error).toBeUndefined();
  });

  it('passes a signal to the determiner that aborts with the caller signal', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const { executor } = setup(
      [
        (input) => {
          seen = input.signal;
          return resolution('success', 'x', 'y');
        },
      ],
      [],
    );
    await executor.handleGoal(goal, { signal: controller.signal });
    expect(seen?.aborted).toBe(false);
    controller.abort();
    expect(seen?.aborted).toBe(true);
  });

  it('awaits onStep with each outcome before deciding again, and reports decisions', async () => {
    const entered = deferred();
    const release = deferred();
    const stepsSeen: Array<{ progress: PursuitProgress; outcome: OperationOutcome }> = [];
    const decisions: Decision[] = [];
    const a = fakeTool({ name: 'a', result: 'A' });
    const b = fakeTool({ name: 'b', error: 'B failed' });
    let released = false;
    let releasedWhenAskedAgain: boolean | undefined;
    const { executor, determiner } = setup(
      [
        plan('a'),
        () => {
          releasedWhenAskedAgain = released;
          return plan('b');
        },
        resolution('success', 'ok', 'ok'),
      ],
      [a, b],
      {
        hooks: {
          onStep: async (progress, outcome) => {
            stepsSeen.push({ progress, outcome });
            if (stepsSeen.length === 1) {
              entered.resolve();
              await release.promise;
              released = true;
            }
          },
          onDecision: (decision) => {
            decisions.push(decision);
          },
        },
      },
    );
    const running = executor.handleGoal(goal);
    await entered.promise;
    expect(determiner.inputs).toHaveLength(1);
    release.resolve();
    const outcome = await running;

    expect(releasedWhenAskedAgain).toBe(true);
    expect(determiner.stepsSeen).toEqual([0, 1, 2]);
    expect(stepsSeen.map((s) => s.outcome.status)).toEqual(['success', 'failed']);
    expect(stepsSeen.map((s) => s.progress.executedSteps.length)).toEqual([1, 2]);
    expect(stepsSeen[1]?.progress.executedSteps[1]).toBe(stepsSeen[1]?.outcome);
    expect(decisions.map((d) => d.kind)).toEqual(['operation', 'operation', 'resolution']);
    expect(outcome.status).toBe('completed');
  });

  it('fails the pursuit when the checkpoint hook rejects', async () => {
    const a = fakeTool({ name: 'a' });
    const { executor, determiner } = setup([plan('a'), resolution('success', 'ok', 'ok')], [a], {
      hooks: { onStep: () => Promise.reject(new Error('kv down')) },
    });
    const outcome = await executor.handleGoal(goal);
    expect(outcome.status).toBe('failed');
    expect(outcome.error?.message).toBe('kv down');
    expect(outcome.reason).toContain('checkpoint hook failed');
    expect(determiner.inputs).toHaveLength(1);
  });

  it('resumes from checkpointed progress: numbering and step budget continue', async () => {
    const tool = fakeTool({ name: 't' });
    const previous: OperationOutcome = {
      operation: plan('t', 'earlier'),
      status: 'success',
      result: 'earlier result',
      errorMessage: null,
      startedAt: '2026-01-01T00:00:00.000Z',
      completedAt: '2026-01-01T00:00:01.000Z',
    };
    const steps: number[] = [];
    const { executor, determiner, ctx } = setup([plan('t', 'later'), plan('t', 'too many')], [tool], {
      limits: { maxSteps: 2 },
      hooks: {
        onStep: async (progress) => {
          steps.push(progress.executedSteps.length);
        },
      },
    });
    const outcome = await executor.handleGoal(goal, { resume: { goal, executedSteps: [previous] } });

    expect(determiner.stepsSeen).toEqual([1]);
    expect(determiner.inputs[0]?.progress.executedSteps[0]).toBe(previous);
    expect(steps).toEqual([2]);
    expect(ctx.messages('info')).toContain('Step 2: Executing: later');
    expect(ctx.messages('info')[0]).toMatch(/^Resuming goal pursuit after step 1/);
    expect(outcome.executedSteps.map((s) => s.operation.reason)).toEqual(['earlier', 'later']);
    expect(outcome.limitHit).toBe('max_steps');
  });

  it('stamps outcome times from the injected clock', async () => {
    const { executor, clock } = setup([resolution('success', 'x', 'y')], []);
    const outcome = await executor.handleGoal(goal);
    expect(outcome.resolvedAt).toBe(new Date(clock.now()).toISOString());
  });

  it('aborts an in-flight tool when the wall-clock budget passes and abandons with wall_clock', async () => {
    const never = deferred();
    const tool = fakeTool({ name: 'hang', until: never.promise });
    // a real (short) timer here: the budget timer is what aborts the call; the test only awaits the outcome
    const { executor } = setup([plan('hang')], [tool], { limits: { wallClockMs: 20 } });
    const outcome = await executor.handleGoal(goal);
    expect(tool.calls[0]?.signal.aborted).toBe(true);
    expect(outcome.status).toBe('abandoned');
    expect(outcome.limitHit).toBe('wall_clock');
    expect(outcome.executedSteps[0]?.status).toBe('cancelled');
  });
});
