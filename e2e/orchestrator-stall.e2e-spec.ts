import { FINAL_TRACE_KINDS } from '@novelrag/contracts';
import { type SseEvent, type System, expectDemoCompletedOnce, startSystem } from '@novelrag/testkit';
import { answerUntilEnd, demoGoalUntilAsked } from './takeover-steps';

// A CPU stall on a live orchestrator (issue 18, deliverable 3): with the default 3 s ack wait and lease, a holder
// stalled longer (here SIGSTOP until the other instance resumed the goal) loses the goal. Once it runs again it must
// learn it at its next renewal and stop acting: the goal completes once, each write is applied once, the trace is
// gapless with one final event, and the woken instance lives on.
describe('an orchestrator paused while it holds a goal (two instances, default settings)', () => {
  let system: System;

  beforeAll(async () => {
    system = await startSystem('stall');
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('a holder paused past the ack wait (SIGSTOP) stops cleanly once resumed: one completion, writes once, trace gapless', async () => {
    const { goalId, asked } = await demoGoalUntilAsked(system);
    // stall-orch-1, the only orchestrator when the goal was picked up, holds it; stall-orch-2 will take it over.
    const holder = system.processes.find((p) => p.name === 'stall-orch-1')!;
    await system.start('orchestrator', 'stall-orch-2');
    // A stall longer than the ack wait and the lease (a blocked event loop, a paused VM): the goal is taken over.
    holder.child.kill('SIGSTOP');
    let resumed: SseEvent[];
    try {
      resumed = await system.events(goalId, {
        lastEventId: asked.id,
        until: (e) => e.event.kind === 'goal.started',
        timeoutMs: 60_000,
      });
    } finally {
      holder.child.kill('SIGCONT'); // the stalled holder wakes up while the goal runs on stall-orch-2
    }
    expect(resumed[resumed.length - 1]!.event).toMatchObject({ kind: 'goal.started', attempt: 2 });
    const iid = asked.event.interaction.interactionId;
    const answer = await system.http(`/v1/goals/${goalId}/interactions/${iid}`, {
      method: 'POST',
      body: JSON.stringify({ approved: true }),
    });
    expect([200, 202]).toContain(answer.status);
    await answerUntilEnd(system, goalId, resumed[resumed.length - 1]!.id);
    await expectDemoCompletedOnce(system, goalId);
    // The whole trace: numbered without gaps or repeats, and exactly one final event.
    const trace = await system.events(goalId, { timeoutMs: 30_000 });
    expect(trace.map((e) => e.event.seq)).toEqual(trace.map((_, i) => i));
    expect(trace.filter((e) => FINAL_TRACE_KINDS.includes(e.event.kind)).map((e) => e.event.kind)).toEqual([
      'goal.completed',
    ]);
    // The woken holder stopped acting on the goal and lives on (no crash).
    expect(holder.child.exitCode).toBeNull();
  }, 170_000);
});
