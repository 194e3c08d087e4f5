/// <reference types="jest" />
// The shared ToolExecutor contract: every executor (in process, remote over the bus) runs this one suite. A test
// helper, not runtime code: only spec files call it, and jest globals are used only inside the registered functions.
import { operationPlan } from '../pursuit/step';
import type { SchematicTool } from '../tool/schematic-tool';
import type { ToolExecutor } from '../tool/tool-executor';
import { RecordingExecutionContext, type RecordedEvent } from './recording-execution-context';
import { type ContractTools, contractTools } from './tool-executor-contract-tools';

export {
  CONTRACT_SHORT_TIMEOUT_MS,
  CONTRACT_TIMEOUT_MS,
  contractTools,
} from './tool-executor-contract-tools';
export type { ContractTools } from './tool-executor-contract-tools';

/** One executor under test, able to call exactly the given tools. */
export interface ToolExecutorHarness {
  readonly executor: ToolExecutor;
  /** Releases what `create` started (the contract tools were released before). */
  cleanup(): Promise<void>;
}

export interface ToolExecutorContractFactory {
  /** An executor that calls `tools` (in process: a catalog of them; remote: the tools served on the bus). */
  create(tools: readonly SchematicTool[]): Promise<ToolExecutorHarness>;
  /** When set, the suite does not run; one test prints this reason as a visible warning instead. */
  readonly skip?: string;
}

const plan = (tool: string, params: Record<string, unknown> = {}) => operationPlan(tool, params, 'contract');

/** The events a tool's chatter leaves in the context, in the order it said them. */
const CHATTER: readonly RecordedEvent[] = [
  { kind: 'debug', message: 'contract debug' },
  { kind: 'info', message: 'contract info' },
  { kind: 'warning', message: 'contract warning' },
  { kind: 'error', message: 'contract error' },
  { kind: 'output', message: 'contract output' },
  { kind: 'progress', key: 'contract_items', value: '3', description: 'items done' },
  { kind: 'backlog', content: { description: 'contract follow-up' }, priority: 3 },
];

/**
 * Registers the contract as a Jest `describe` block named `ToolExecutor contract: <name>`. With `factory.skip`, a
 * single test warns `<name> contract suite NOT RUN: <reason>` and passes, so a skipped suite is never silent.
 */
export function describeToolExecutorContract(name: string, factory: ToolExecutorContractFactory): void {
  describe(`ToolExecutor contract: ${name}`, () => {
    if (factory.skip !== undefined) {
      const reason = factory.skip;
      it(`is NOT RUN: ${reason}`, () => {
        console.warn(`${name} contract suite NOT RUN: ${reason}`);
        expect(reason.length).toBeGreaterThan(0);
      });
      return;
    }
    let current: { tools: ContractTools; harness: ToolExecutorHarness } | undefined;
    const tools = (): ContractTools => {
      if (!current) throw new Error('the executor harness was not created');
      return current.tools;
    };
    const execute = (
      p: ReturnType<typeof plan>,
      ctx = new RecordingExecutionContext(),
      signal?: AbortSignal,
    ) => {
      if (!current) throw new Error('the executor harness was not created');
      return current.harness.executor.execute(p, ctx, signal);
    };
    beforeEach(async () => {
      const fresh = contractTools();
      current = { tools: fresh, harness: await factory.create(fresh.all) };
    });
    afterEach(async () => {
      const done = current;
      current = undefined;
      done?.tools.release();
      await done?.harness.cleanup();
    });
    describe('results', () => registerResultCases(tools, execute));
    describe('cancellation and deadline', () => registerStopCases(tools, execute));
    describe('the execution context', () => registerContextCases(tools, execute));
  });
}

type Execute = (
  p: ReturnType<typeof plan>,
  ctx?: RecordingExecutionContext,
  signal?: AbortSignal,
) => ReturnType<ToolExecutor['execute']>;

function registerResultCases(tools: () => ContractTools, execute: Execute): void {
  it('returns a success outcome with the result and the plan', async () => {
    const p = plan(tools().echo.name, { name: '余归', age: 17 });
    const outcome = await execute(p);
    expect(outcome).toMatchObject({ operation: p, status: 'success', errorMessage: null });
    expect(JSON.parse(outcome.result ?? 'null')).toEqual({ name: '余归', age: 17 });
    expect(Date.parse(outcome.completedAt)).toBeGreaterThanOrEqual(Date.parse(outcome.startedAt));
  });

  it('feeds a tool error back as a failed outcome with its code, not a rejection', async () => {
    const outcome = await execute(plan(tools().refuse.name));
    expect(outcome).toMatchObject({ status: 'failed', result: null, errorCode: 'TOOL_FAILED' });
    expect(outcome.errorMessage).toContain('cannot do that');
  });

  it('turns a tool that throws into a failed outcome', async () => {
    const outcome = await execute(plan(tools().explode.name));
    expect(outcome).toMatchObject({ status: 'failed', result: null, errorCode: 'TOOL_FAILED' });
  });

  it('fails a call to an unknown tool with a code', async () => {
    const outcome = await execute(plan('contract_nobody_serves_this'));
    expect(outcome).toMatchObject({ status: 'failed', result: null });
    expect(['TOOL_NOT_FOUND', 'NO_RESPONDERS']).toContain(outcome.errorCode);
  });

  it('refuses parameters that do not match the input schema without running the tool', async () => {
    const outcome = await execute(plan(tools().strict.name, { count: 'three' }));
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'VALIDATION_FAILED' });
    expect(outcome.errorMessage).toContain('count');
    expect(tools().strict.calls).toHaveLength(0);
    await expect(execute(plan(tools().strict.name, { count: 3 }))).resolves.toMatchObject({
      status: 'success',
      result: 'counted 3',
    });
  });
}

function registerStopCases(tools: () => ContractTools, execute: Execute): void {
  it('resolves a running call as cancelled once the signal aborts', async () => {
    const abort = new AbortController();
    const running = execute(plan(tools().hang.name), new RecordingExecutionContext(), abort.signal);
    await tools().hang.whenCalled();
    abort.abort();
    await expect(running).resolves.toMatchObject({ status: 'cancelled', errorCode: 'CANCELLED' });
  });

  it('does not run the tool when the signal aborted before the call', async () => {
    const abort = new AbortController();
    abort.abort();
    const outcome = await execute(plan(tools().echo.name), new RecordingExecutionContext(), abort.signal);
    expect(outcome).toMatchObject({ status: 'cancelled', errorCode: 'CANCELLED' });
    expect(tools().echo.calls).toHaveLength(0);
  });

  it('fails a call that outlives its deadline with TIMEOUT', async () => {
    const outcome = await execute(plan(tools().overrun.name));
    expect(outcome).toMatchObject({ status: 'failed', result: null, errorCode: 'TIMEOUT' });
  });

  it('does not wait for a tool that ignores its signal past the deadline', async () => {
    const outcome = await execute(plan(tools().deaf.name));
    expect(outcome).toMatchObject({ status: 'failed', result: null, errorCode: 'TIMEOUT' });
  });
}

function registerContextCases(tools: () => ContractTools, execute: Execute): void {
  it("delivers the tool's log lines, output, progress and backlog to the given context, in order", async () => {
    const ctx = new RecordingExecutionContext();
    const outcome = await execute(plan(tools().chatty.name), ctx);
    expect(outcome).toMatchObject({ status: 'success', result: 'said everything' });
    await ctx.waitFor((e) => e.kind === 'backlog'); // the last one said
    const said = ctx.events.filter((e) => CHATTER.some((c) => JSON.stringify(c) === JSON.stringify(e)));
    expect(said).toEqual(CHATTER);
  });

  it("asks the given context the tool's questions and hands the answers back", async () => {
    const ctx = new RecordingExecutionContext({ confirmAnswers: [true], requestAnswers: ['Lin'] });
    const outcome = await execute(plan(tools().ask.name), ctx);
    expect(outcome).toMatchObject({ status: 'success' });
    expect(JSON.parse(outcome.result ?? 'null')).toEqual({ approved: true, name: 'Lin' });
    expect(ctx.events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'confirm', message: 'Overwrite the chapter?', answer: true }),
        expect.objectContaining({ kind: 'request', prompt: 'Name the new character', answer: 'Lin' }),
      ]),
    );
  });

  it('hands a declined question back to the tool as a decline', async () => {
    const ctx = new RecordingExecutionContext({ confirmAnswers: [false], requestAnswers: [null] });
    const outcome = await execute(plan(tools().ask.name), ctx);
    expect(JSON.parse(outcome.result ?? 'null')).toEqual({ approved: false, name: null });
  });
}
