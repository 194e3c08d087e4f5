// Steps the takeover e2e tests share: the demo goal up to its first confirmation, and following a goal to its end.
import {
  DEMO_REQUEST,
  type SseEvent,
  type System,
  demoScenario,
  installRules,
  postGoal,
} from '@novelrag/testkit';

/** Submits the demo goal and follows it up to its first confirmation (the runner then waits for the answer). */
export async function demoGoalUntilAsked(system: System) {
  installRules(system.fake, demoScenario().rules);
  const goalId = await postGoal(system, { request: DEMO_REQUEST, lang: 'en' });
  const before = await system.events(goalId, {
    until: (e) => e.event.kind === 'interaction.requested',
    timeoutMs: 90_000,
  });
  const asked = before[before.length - 1]!;
  if (asked.event.kind !== 'interaction.requested') throw new Error('the goal ended before it asked');
  return { goalId, asked: { id: asked.id, event: asked.event } };
}

/** Follows the goal to its end from `lastEventId`, approving any further confirmation. */
export async function answerUntilEnd(
  system: System,
  goalId: string,
  lastEventId: string,
): Promise<SseEvent[]> {
  const all: SseEvent[] = [];
  let last = lastEventId;
  for (;;) {
    const batch = await system.events(goalId, {
      lastEventId: last,
      until: (e) => e.event.kind === 'interaction.requested',
      timeoutMs: 90_000,
    });
    all.push(...batch);
    const tail = batch[batch.length - 1];
    if (!tail || tail.event.kind !== 'interaction.requested') return all;
    last = tail.id;
    const iid = tail.event.interaction.interactionId;
    const reply = await system.http(`/v1/goals/${goalId}/interactions/${iid}`, {
      method: 'POST',
      body: JSON.stringify({ approved: true }),
    });
    expect([200, 202]).toContain(reply.status);
  }
}
