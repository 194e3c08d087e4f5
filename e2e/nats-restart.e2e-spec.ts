import { SERVICE_NAMES, Subjects } from '@novelrag/contracts';
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

// ARCHITECTURE §7: "NATS restarts: clients reconnect; no accepted goal and no trace event in JetStream is lost". The
// NATS server is killed (-9) and started again on the same port and store while a tool-runner works on the first step
// of the offline demo's 余归 goal; every service rides it out, and the goal completes with a gap-free trace and every
// write applied once.
describe('a NATS restart (kill -9) in the middle of a goal', () => {
  let system: System;

  beforeAll(async () => {
    system = await startSystem('natsrestart');
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('every service reconnects and the goal completes with a gap-free trace and no write applied twice', async () => {
    // The first tool call waits on a slow model answer, so the restart lands while a runner works on it.
    const inTool = holdAspectAnswer(system.fake, 'the people of the story', 'Characters of the story');
    installRules(system.fake, demoScenario().rules);

    const goalId = await postGoal(system, { request: DEMO_REQUEST, lang: 'en' });
    await inTool;
    await system.nats.restart!({ signal: 'SIGKILL', downMs: 500 });

    // Followed from the start: the replay from the TRACE stream must hold every event, then it goes on live.
    const events = await followAnswering(system, goalId, true, 90_000);
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });
    const seqs = events.map((e) => e.event.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i)); // 0, 1, 2, … : nothing lost, nothing repeated

    await expectDemoCompletedOnce(system, goalId);

    // Nobody died, and every service reports healthy on the restarted server.
    expect(system.processes.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)).toEqual(
      [],
    );
    for (const service of SERVICE_NAMES) {
      const reply = await system.nc.request(Subjects.health(service), '{}', { timeout: 5_000 });
      expect({ service, health: reply.json() }).toMatchObject({ service, health: { ok: true } });
    }
  }, 120_000);
});
