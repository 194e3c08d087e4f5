import { deferred } from '@novelrag/agenturn/testing';
import { SERVICE_NAMES, Subjects } from '@novelrag/contracts';
import {
  DEMO_SCENARIO,
  aspectDraft,
  type System,
  followAnswering,
  installRules,
  startSystem,
  submitGoal,
  writesByGroup,
} from './support/system';

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
    const inTool = deferred();
    // The first tool call waits on a slow model answer, so the restart lands while a runner works on it.
    system.fake.once(
      {
        schemaName: 'aspect_metadata',
        where: (r) => JSON.stringify(r.body).includes('the people of the story'),
      },
      () => {
        inTool.resolve();
        return { delayMs: 3_000, then: { json: aspectDraft('Characters of the story') } };
      },
    );
    installRules(system.fake, DEMO_SCENARIO.rules);

    const goalId = await submitGoal(system, {
      request: 'Create a protagonist named 余归 and link her to the Azure Sect',
      lang: 'en',
    });
    await inTool.promise;
    await system.nats.restart!({ signal: 'SIGKILL', downMs: 500 });

    // Followed from the start: the replay from the TRACE stream must hold every event, then it goes on live.
    const events = await followAnswering(system, goalId, true, 90_000);
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });
    const seqs = events.map((e) => e.event.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i)); // 0, 1, 2, … : nothing lost, nothing repeated

    const goal = await system.http(`/v1/goals/${goalId}`);
    expect(goal.body['status']).toBe('completed');
    const steps = goal.body['steps'] as {
      plan: { tool: string };
      outcome: { status: string; invocationId: string };
    }[];
    expect(steps.map((s) => [s.plan.tool, s.outcome.status])).toEqual([
      ['AspectCreateTool', 'success'],
      ['AspectCreateTool', 'success'],
      ['ResourceWriteTool', 'success'],
      ['ResourceRelationWriteTool', 'success'],
    ]);
    const writesOf = await writesByGroup(system);
    for (const step of steps) {
      const writes = writesOf(step.outcome.invocationId);
      expect({ id: step.outcome.invocationId, distinct: new Set(writes).size }).toEqual({
        id: step.outcome.invocationId,
        distinct: writes.length,
      });
    }

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
