import { ModelTimeoutError } from '../errors/model-errors';
import { operationPlan } from '../pursuit/step';
import { deferred } from '../testing/deferred';
import { fakeTool } from '../testing/fake-tool';
import { ManualClock } from '../testing/manual-clock';
import { RecordingExecutionContext } from '../testing/recording-execution-context';
import { InProcessToolExecutor } from './in-process-tool-executor';
import type { SchematicTool } from './schematic-tool';
import { ToolCatalog } from './tool-catalog';
import { toolResult, type ToolOutput } from './tool-output';

function run(
  tools: SchematicTool[] | ToolCatalog,
  tool: string,
  params: Record<string, unknown> = {},
  signal?: AbortSignal,
) {
  const catalog = tools instanceof ToolCatalog ? tools : new ToolCatalog(tools);
  const clock = new ManualClock();
  const ctx = new RecordingExecutionContext();
  const executor = new InProcessToolExecutor(catalog, { clock });
  return { promise: executor.execute(operationPlan(tool, params, 'because'), ctx, signal), ctx, clock };
}

describe('InProcessToolExecutor', () => {
  it('returns a success outcome with the result, the plan and clock timestamps', async () => {
    const tool = fakeTool({ name: 'echo', result: (p) => `echo ${String(p['text'])}` });
    const { promise, clock, ctx } = run([tool], 'echo', { text: 'hi' });
    const outcome = await promise;
    expect(outcome).toEqual({
      operation: operationPlan('echo', { text: 'hi' }, 'because'),
      status: 'success',
      result: 'echo hi',
      errorMessage: null,
      startedAt: new Date(clock.now()).toISOString(),
      completedAt: new Date(clock.now()).toISOString(),
    });
    expect(tool.calls[0]?.params).toEqual({ text: 'hi' });
    expect(ctx.messages('debug')).toEqual(['Calling tool echo']);
  });

  it('passes the context to the tool', async () => {
    const tool = fakeTool({
      name: 'ask',
      result: async (_p, ctx) => ((await ctx.confirm('really?')) ? 'yes' : 'no'),
    });
    const catalog = new ToolCatalog([tool]);
    const ctx = new RecordingExecutionContext({ confirmAnswers: [true] });
    const outcome = await new InProcessToolExecutor(catalog).execute(operationPlan('ask', {}, 'r'), ctx);
    expect(outcome.result).toBe('yes');
    expect(ctx.events).toContainEqual({ kind: 'confirm', message: 'really?', answer: true });
  });

  it('fails an unknown tool with TOOL_NOT_FOUND', async () => {
    const outcome = await run([], 'ghost').promise;
    expect(outcome).toMatchObject({
      status: 'failed',
      result: null,
      errorMessage: 'Tool ghost not found',
      errorCode: 'TOOL_NOT_FOUND',
    });
  });

  it('refuses a tool marked unavailable without calling it', async () => {
    const tool = fakeTool({ name: 'remote' });
    const catalog = new ToolCatalog([{ tool, available: false }]);
    const outcome = await run(catalog, 'remote').promise;
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'UNAVAILABLE' });
    expect(tool.calls).toHaveLength(0);
  });

  it('maps a ToolOutput error to a failed step, defaulting the code to TOOL_FAILED', async () => {
    expect(await run([fakeTool({ name: 't', error: 'nope' })], 't').promise).toMatchObject({
      status: 'failed',
      errorMessage: 'nope',
      errorCode: 'TOOL_FAILED',
    });
    expect(
      await run([fakeTool({ name: 't', error: { message: 'dup', code: 'ALREADY_EXISTS' } })], 't').promise,
    ).toMatchObject({
      errorCode: 'ALREADY_EXISTS',
    });
  });

  it('maps thrown errors to failed steps, keeping agenturn codes', async () => {
    expect(await run([fakeTool({ name: 't', throws: 'kaput' })], 't').promise).toMatchObject({
      status: 'failed',
      errorMessage: 'kaput',
      errorCode: 'TOOL_FAILED',
    });
    expect(await run([fakeTool({ name: 't', throws: new ModelTimeoutError(5) })], 't').promise).toMatchObject(
      {
        status: 'failed',
        errorCode: 'TIMEOUT',
      },
    );
  });

  it('catches a synchronous throw from call()', async () => {
    const tool: SchematicTool = {
      name: 'sync',
      description: 'throws synchronously',
      inputSchema: { type: 'object' },
      call: () => {
        throw new Error('sync boom');
      },
    };
    expect(await run([tool], 'sync').promise).toMatchObject({ status: 'failed', errorMessage: 'sync boom' });
  });

  it('rejects a malformed output (e.g. from untyped code) as a failed step', async () => {
    const tool: SchematicTool = {
      name: 'bad',
      description: 'returns garbage',
      inputSchema: { type: 'object' },
      call: async () => ({ type: 'output', result: 'old python shape' }) as unknown as ToolOutput,
    };
    expect(await run([tool], 'bad').promise).toMatchObject({
      status: 'failed',
      errorMessage: 'Tool bad returned an invalid output',
      errorCode: 'TOOL_FAILED',
    });
  });

  it('returns cancelled without calling the tool when the signal is already aborted', async () => {
    const tool = fakeTool({ name: 't' });
    const controller = new AbortController();
    controller.abort();
    const outcome = await run([tool], 't', {}, controller.signal).promise;
    expect(outcome).toMatchObject({ status: 'cancelled', errorCode: 'CANCELLED' });
    expect(tool.calls).toHaveLength(0);
  });

  it('resolves cancelled at once on abort even when the tool ignores its signal', async () => {
    const never = deferred();
    const tool = fakeTool({ name: 'stubborn', until: never.promise, honourSignal: false });
    const controller = new AbortController();
    const { promise } = run([tool], 'stubborn', {}, controller.signal);
    const call = await tool.whenCalled();
    controller.abort();
    const outcome = await promise;
    expect(outcome.status).toBe('cancelled');
    expect(call.signal.aborted).toBe(true);
    never.resolve(); // the late result is dropped
  });

  it('enforces the tool deadline by aborting its signal and failing with TIMEOUT', async () => {
    const never = deferred();
    const tool = fakeTool({ name: 'slow', until: never.promise, timeoutMs: 5 });
    const outcome = await run([tool], 'slow').promise;
    expect(outcome).toMatchObject({
      status: 'failed',
      errorCode: 'TIMEOUT',
      errorMessage: 'tool slow exceeded its deadline of 5 ms',
    });
    expect(tool.calls[0]?.signal.aborted).toBe(true);
  });
});

describe('ToolCatalog', () => {
  const a = fakeTool({ name: 'a' });
  const b = fakeTool({ name: 'b' });

  it('maps names to tools and tracks availability', () => {
    const catalog = new ToolCatalog([a, { tool: b, available: false }]);
    expect(catalog.size).toBe(2);
    expect(catalog.names).toEqual(['a', 'b']);
    expect(catalog.get('a')).toBe(a);
    expect(catalog.get('b')).toBe(b);
    expect(catalog.get('c')).toBeUndefined();
    expect(catalog.has('b')).toBe(true);
    expect(catalog.isAvailable('a')).toBe(true);
    expect(catalog.isAvailable('b')).toBe(false);
    expect(catalog.isAvailable('c')).toBe(false);
    expect(catalog.callable()).toEqual([a]);
    expect(catalog.list()).toEqual([
      { tool: a, available: true },
      { tool: b, available: false },
    ]);
  });

  it('builds changed copies without mutating the original', () => {
    const catalog = ToolCatalog.of(a, b);
    const changed = catalog.withAvailability({ a: false, zzz: true });
    expect(changed.isAvailable('a')).toBe(false);
    expect(changed.isAvailable('b')).toBe(true);
    expect(changed.has('zzz')).toBe(false);
    expect(catalog.isAvailable('a')).toBe(true);
  });

  it('rejects duplicate names', () => {
    expect(() => ToolCatalog.of(a, fakeTool({ name: 'a' }))).toThrow(/duplicate tool name "a"/);
  });

  it('accepts plain outputs built with the helpers', async () => {
    const tool: SchematicTool = {
      name: 'x',
      description: 'x',
      inputSchema: {},
      call: async () => toolResult('ok'),
    };
    expect(await tool.call(new RecordingExecutionContext(), {}, new AbortController().signal)).toEqual({
      type: 'result',
      result: 'ok',
    });
  });
});
