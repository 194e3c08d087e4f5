import 'reflect-metadata';
import { deferred } from '@novelrag/agenturn/testing';
import { busRequest } from '@novelrag/bus';
import { FindReply, OperationsListReply, Subjects } from '@novelrag/contracts';
import { type ServiceProcess, startServiceProcess, uniqueName } from '@novelrag/testkit';
import { type Harness, buildForProcesses, call, decide, finalize, startHarness } from '../test/harness';

jest.setTimeout(60_000);

const DRAFT = {
  description: 'Places of the story',
  children_keys: [],
  dependencies: [],
  required_fields: [{ name: 'name', type: 'string', description: 'place name' }],
  optional_fields: [],
  extensibility: { description: 'free', examples: [] },
  constraints: [],
  extra_sections: [],
};

/**
 * Orchestrator, real tool-runner and resource-service as OS processes; the model (of both the loop and the tool) is the
 * fake OpenAI server. The runner's own at-most-once record (KV by invocation id) is what makes the resumed step safe.
 */
describe('orchestrator with the real tool-runner (processes)', () => {
  let h: Harness;
  const processes: ServiceProcess[] = [];
  const start = async (app: 'orchestrator' | 'tool-runner') => {
    const env = h.orchestratorEnv({ NOVELRAG_TOOL_LEASE_MS: '2000' });
    const p = await startServiceProcess(app, uniqueName(app), env);
    processes.push(p);
    return p;
  };
  const operations = () =>
    busRequest(h.nc, Subjects.resources.operations, { limit: 100 }, OperationsListReply, {
      timeoutMs: 5_000,
    });

  beforeAll(async () => {
    buildForProcesses(['tool-runner']);
    h = await startHarness('runner');
    await start('tool-runner');
  }, 90_000);

  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await h?.stop();
  });

  it('a goal creates an aspect through the runner, and the repository shows it', async () => {
    await start('orchestrator');
    h.fake.once({ schemaName: 'aspect_metadata' }, { json: DRAFT });
    decide(h.fake, '[R1]', [
      call('AspectCreateTool', { name: 'location', description: ['where things happen'] }),
      finalize('location exists'),
    ]);
    const goalId = await h.submit({ goal: '[R1] create the location aspect' });
    const done = await h.waitForGoal(goalId);
    expect(done).toMatchObject({ status: 'completed', outcome: { response: 'location exists' } });
    expect(done.steps[0]!.outcome.status).toBe('success');
    await expect(
      busRequest(h.nc, Subjects.resources.find, { uri: '/location' }, FindReply, { timeoutMs: 5_000 }),
    ).resolves.toMatchObject({ kind: 'aspect' });
    const invocationId = done.steps[0]!.outcome.invocationId!;
    expect((await operations()).entries.filter((e) => e.group === invocationId)).toHaveLength(1);
  });

  it('SIGKILL while the runner works on a step: the resumed goal gets the recorded result, the write happens once', async () => {
    for (const p of processes.filter((x) => x.name.startsWith('orchestrator'))) await p.stop('SIGKILL');
    const orchestrator = await start('orchestrator');
    const inTool = deferred();
    // The tool's model call is slow: the orchestrator dies while the runner is inside the step.
    h.fake.once({ schemaName: 'aspect_metadata' }, () => {
      inTool.resolve();
      return { delayMs: 2_500, then: { json: DRAFT } };
    });
    decide(h.fake, '[R2]', [
      call('AspectCreateTool', { name: 'faction', description: ['groups of people'] }),
      finalize('faction exists'),
    ]);
    const goalId = await h.submit({ goal: '[R2] create the faction aspect' });
    await inTool.promise;
    const exited = new Promise((resolve) => orchestrator.child.once('exit', resolve));
    orchestrator.child.kill('SIGKILL');
    await exited;
    expect((await h.store.get(goalId))!.inFlight).toMatchObject({
      index: 0,
      plan: { tool: 'AspectCreateTool' },
    });

    await start('orchestrator');
    const done = await h.waitForGoal(goalId);
    expect(done).toMatchObject({ status: 'completed', outcome: { response: 'faction exists', steps: 1 } });
    const invocationId = done.steps[0]!.outcome.invocationId!;
    expect((await operations()).entries.filter((e) => e.group === invocationId)).toHaveLength(1);
    expect(h.fake.requests.filter((r) => r.schemaName === 'aspect_metadata')).toHaveLength(2); // R1 and R2, once each
    await h.trace.waitFor(goalId, 'goal.completed');
    expect(h.trace.of(goalId).filter((e) => e.kind === 'goal.started')).toEqual([
      expect.objectContaining({ attempt: 1 }),
      expect.objectContaining({ attempt: 2 }),
    ]);
  });
});
