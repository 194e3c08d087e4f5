import 'reflect-metadata';
import { deferred } from '@novelrag/agenturn/testing';
import { busRequest } from '@novelrag/bus';
import { FindReply, Subjects } from '@novelrag/contracts';
import { type ServiceProcess, startServiceProcess, uniqueName } from '@novelrag/testkit';
import { type Harness, buildForProcesses, call, decide, finalize, startHarness } from '../test/harness';

jest.setTimeout(60_000);

/**
 * The orchestrator as an OS process from its dist, killed with SIGKILL while a tool call is in flight, then restarted:
 * the goal is redelivered, resumes from its checkpoint, re-sends the in-flight step with the same invocation id (the
 * runner replays its recorded result) and completes with every step executed exactly once.
 */
describe('orchestrator crash and resume (SIGKILL of the process mid-goal)', () => {
  let h: Harness;
  const processes: ServiceProcess[] = [];
  const startOrchestrator = async (extra: Record<string, string> = {}) => {
    const p = await startServiceProcess('orchestrator', uniqueName('orch-crash'), h.orchestratorEnv(extra));
    processes.push(p);
    return p;
  };

  beforeAll(async () => {
    buildForProcesses();
    h = await startHarness('crash');
  }, 90_000);

  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await h?.stop();
  });

  it('resumes on a new process and executes no step twice', async () => {
    const first = await startOrchestrator();
    decide(h.fake, '[C1]', [
      call('create_character', { name: 'Alpha' }),
      call('create_character', { name: 'Beta' }),
      call('create_character', { name: 'Gamma' }),
      finalize('three characters'),
    ]);
    const firstCall = h.tools.nextInvocation('create_character');
    const goalId = await h.submit({ goal: '[C1] create Alpha, Beta and Gamma' });
    await firstCall;
    // Hold the second step inside the tool, then kill the orchestrator while it waits for the answer.
    const gate = deferred();
    h.tools.gates.set('create_character', gate);
    const secondCall = await h.tools.nextInvocation('create_character');
    expect(secondCall.step).toBe(1);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    const crashed = (await h.store.get(goalId))!;
    expect(crashed).toMatchObject({
      status: 'running',
      inFlight: { index: 1, plan: { tool: 'create_character' } },
    });
    expect(crashed.steps).toHaveLength(1);
    gate.resolve(); // the tool finishes its write; its answer reaches nobody

    await startOrchestrator();
    const done = await h.waitForGoal(goalId);
    expect(done).toMatchObject({ status: 'completed', outcome: { response: 'three characters', steps: 3 } });
    expect(done.steps.map((s) => [s.index, s.plan.params['name'], s.outcome.status])).toEqual([
      [0, 'Alpha', 'success'],
      [1, 'Beta', 'success'],
      [2, 'Gamma', 'success'],
    ]);

    // Exactly one execution per invocation id; the in-flight one was re-sent with the same id and replayed.
    const mine = h.tools.received.filter((i) => i.goalId === goalId);
    expect(mine.filter((i) => i.step === 1).map((i) => i.invocationId)).toEqual([
      secondCall.invocationId,
      secondCall.invocationId,
    ]);
    expect([...new Set(mine.map((i) => i.invocationId))].map((id) => h.tools.executions.get(id))).toEqual([
      1, 1, 1,
    ]);
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      await expect(
        busRequest(h.nc, Subjects.resources.find, { uri: `/character/${name}` }, FindReply, {
          timeoutMs: 5_000,
        }),
      ).resolves.toMatchObject({ kind: 'element' });
    }

    await h.trace.waitFor(goalId, 'goal.completed');
    const events = h.trace.of(goalId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i)); // gap-free across both processes
    const starts = events.filter((e) => e.kind === 'goal.started');
    expect(starts).toEqual([
      expect.objectContaining({ attempt: 1 }),
      expect.objectContaining({ attempt: 2, resumedFromStep: 1 }),
    ]);
    expect(
      events.find((e) => e.kind === 'operation.outcome' && e.step === 1 && e.replayed === true),
    ).toBeDefined();
  });

  it('SIGTERM hands a running goal back at once (lease released, message naked); another instance finishes it', async () => {
    for (const p of processes.splice(0)) await p.stop('SIGKILL'); // only the instances of this test
    // Ack wait and thread lease far longer than the test, and a long grace: only a hand-back that releases the lease
    // and naks the message lets the other instance take the goal while the first attempt's tool call is still held.
    const slow = {
      NOVELRAG_GOAL_ACK_WAIT_MS: '120000',
      NOVELRAG_THREAD_LEASE_MS: '120000',
      NOVELRAG_SHUTDOWN_GRACE_MS: '60000',
    };
    const leaving = await startOrchestrator(slow);
    decide(h.fake, '[C2]', [
      call('create_character', { name: 'Kappa' }),
      call('create_character', { name: 'Lambda' }),
      finalize('two characters'),
    ]);
    const firstCall = h.tools.nextInvocation('create_character');
    const goalId = await h.submit({ goal: '[C2] create Kappa and Lambda' });
    await firstCall;
    const gate = deferred();
    h.tools.gates.set('create_character', gate);
    const held = await h.tools.nextInvocation('create_character');
    await startOrchestrator(slow); // the instance that will take over

    const exited = new Promise<number | null>((resolve) =>
      leaving.child.once('exit', (code) => resolve(code)),
    );
    leaving.child.kill('SIGTERM');
    // Resumed elsewhere while the first attempt's tool call is still held (before, the leaving instance waited its
    // grace period for the goal to finish); bounded far below the ack wait and the lease.
    const resumed = await secondStart(goalId, 30_000);
    expect(resumed).toMatchObject({ attempt: 2, resumedFromStep: 1 });
    expect(await exited).toBe(0);

    gate.resolve();
    const done = await h.waitForGoal(goalId);
    expect(done).toMatchObject({ status: 'completed', outcome: { response: 'two characters', steps: 2 } });
    expect(done.steps.map((s) => s.outcome.status)).toEqual(['success', 'success']);
    const ids = [...new Set(h.tools.received.filter((i) => i.goalId === goalId).map((i) => i.invocationId))];
    expect(ids).toContain(held.invocationId);
    expect(ids.map((id) => h.tools.executions.get(id))).toEqual([1, 1]);
    await h.trace.waitFor(goalId, 'goal.completed');
    expect(h.trace.of(goalId).filter((e) => e.kind === 'goal.started')).toEqual([
      expect.objectContaining({ attempt: 1 }),
      expect.objectContaining({ attempt: 2, resumedFromStep: 1 }),
    ]);
  });

  /** The second `goal.started` of a goal, polled until `ms` pass (a generous bound, not a timing assertion). */
  async function secondStart(goalId: string, ms: number) {
    const deadline = Date.now() + ms;
    for (;;) {
      const starts = h.trace.of(goalId).filter((e) => e.kind === 'goal.started');
      if (starts.length >= 2) return starts[1];
      if (Date.now() > deadline) throw new Error('the goal was not resumed by the other instance');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
});
