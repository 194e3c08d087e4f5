import 'reflect-metadata';
import { type ServiceProcess, aspectDraft, startServiceProcess, uniqueName } from '@novelrag/testkit';
import { type Harness, buildForProcesses, call, decide, finalize, startHarness } from '../test/harness';

jest.setTimeout(60_000);

const DRAFT = aspectDraft('Places of the story');
/** What the tool's one model call costs: far above the budget, while the loop's own calls stay well below it. */
const TOOL_USAGE = { promptTokens: 400_000, completionTokens: 5_000 };
const BUDGET = 200_000;

/**
 * The model calls a tool makes in the real tool-runner are the goal's: reported back over the invocation's runtime
 * subject, traced as `llm.call` with the invocation id, and counted against the goal's token budget.
 */
describe("a tool's model calls count against the goal's token budget (processes)", () => {
  let h: Harness;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    buildForProcesses(['tool-runner']);
    h = await startHarness('toolbudget');
    const env = h.orchestratorEnv();
    for (const app of ['tool-runner', 'orchestrator'] as const) {
      processes.push(await startServiceProcess(app, uniqueName(app), env));
    }
  }, 90_000);

  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await h?.stop();
  });

  it('a budget only the tool call exceeds ends the goal abandoned with limitHit token_budget', async () => {
    h.fake.once({ schemaName: 'aspect_metadata' }, { json: DRAFT }, TOOL_USAGE);
    decide(h.fake, '[TB]', [
      call('AspectCreateTool', { name: 'location', description: ['where things happen'] }),
      finalize('location exists'),
    ]);
    const goalId = await h.submit({
      goal: '[TB] create the location aspect',
      limits: { tokenBudget: BUDGET },
    });
    const done = await h.waitForGoal(goalId);

    expect(done).toMatchObject({ status: 'abandoned', outcome: { limitHit: 'token_budget' } });
    expect(done.usage.totalTokens).toBeGreaterThan(BUDGET);
    await h.trace.waitFor(goalId, 'goal.abandoned');
    const calls = h.trace.of(goalId).filter((e) => e.kind === 'llm.call');
    const toolCalls = calls.filter((e) => e.invocationId !== undefined);
    expect(toolCalls).toEqual([
      expect.objectContaining({
        purpose: expect.any(String),
        promptTokens: TOOL_USAGE.promptTokens,
        completionTokens: TOOL_USAGE.completionTokens,
        ok: true,
        step: 0,
      }),
    ]);
    // Without the tool's call the loop's own calls stay within the budget.
    const loopTokens = calls
      .filter((e) => e.invocationId === undefined)
      .reduce((n, e) => n + e.promptTokens + e.completionTokens, 0);
    expect(loopTokens).toBeLessThan(BUDGET);
  });
});
