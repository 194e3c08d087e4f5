import { Kvm } from '@nats-io/kv';
import { Buckets } from '@novelrag/contracts';
import {
  DEMO_REQUEST,
  demoScenario,
  type System,
  expectDemoCompletedOnce,
  followAnswering,
  holdAspectAnswer,
  installRules,
  startSystem,
  postGoal,
} from '@novelrag/testkit';

// kill -9 of a tool-runner and of the orchestrator in the middle of one goal (the offline demo's 余归 scenario on an
// empty repository): the goal still completes, and every step's write is applied exactly once.
describe('crashes during a goal (kill -9 of a tool-runner and of the orchestrator)', () => {
  let system: System;

  beforeAll(async () => {
    // The orchestrator gives up on the dead runner once its claim in `tool-results` is stale: the runners' lease
    // (NOVELRAG_TOOL_LEASE_MS, 2 s here) plus NOVELRAG_TOOL_CLAIM_GRACE_MS (2 s) plus at most a 1 s poll, instead of the
    // first attempt's share of the tool's declared timeout (120 s / 3 attempts), which stays the fallback.
    system = await startSystem('crash', { runners: 2 });
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('the goal completes and no write is applied twice', async () => {
    // Slow model calls inside the tools, so the kills land while a runner is working on a step.
    const inCharacterTool = holdAspectAnswer(
      system.fake,
      'the people of the story',
      'Characters of the story',
    );
    const inFactionTool = holdAspectAnswer(
      system.fake,
      'sects, schools',
      'Factions, sects and schools of the world',
    );
    installRules(system.fake, demoScenario().rules);

    const goalId = await postGoal(system, { request: DEMO_REQUEST, lang: 'en' });
    const following = followAnswering(system, goalId, true, 90_000);

    // Step 0: kill -9 the runner that claimed the invocation (its claim names it).
    await inCharacterTool;
    const kv = await new Kvm(system.nc).open(Buckets.toolResults);
    const claim = (await kv.get(`${goalId}-s0`))?.json<{ runner: string }>();
    const victim = system.processes.find((p) => p.name === claim?.runner);
    if (!victim) throw new Error(`no runner process named ${claim?.runner}`);
    victim.child.kill('SIGKILL');

    // Step 1: kill -9 the orchestrator while the surviving runner works; a new one resumes the goal.
    await inFactionTool;
    const orchestrator = system.processes.find((p) => p.name === 'crash-orch-1')!;
    const exited = new Promise((resolve) => orchestrator.child.once('exit', resolve));
    orchestrator.child.kill('SIGKILL');
    await exited;
    await system.start('orchestrator', 'crash-orch-2');

    const events = await following;
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });
    expect(events.filter((e) => e.event.kind === 'goal.started').map((e) => e.event)).toEqual([
      expect.objectContaining({ attempt: 1 }),
      expect.objectContaining({ attempt: 2 }),
    ]);
    // One application per step: the killed runner never wrote, the resumed step got the recorded result.
    await expectDemoCompletedOnce(system, goalId);
    const roots = await system.http('/v1/resources?uri=/character');
    expect(roots.body['rootIds']).toEqual(['yugui']);
    // The faction aspect's tool ran once: the resumed invocation was served from the runner's record.
    expect(
      system.fake.requests.filter(
        (r) => JSON.stringify(r.body).includes('sects, schools') && r.schemaName === 'aspect_metadata',
      ),
    ).toHaveLength(1);
    expect((await system.http('/v1/resources?uri=/character/yugui')).status).toBe(200);
  }, 110_000);
});
