/// <reference types="jest" />
// Assertions of the e2e suites on a running system (they use Jest's `expect`: for tests only).
import { busRequest } from '@novelrag/bus';
import { OperationsListReply, Subjects } from '@novelrag/contracts';
import type { SseEvent } from './sse';
import type { System } from './system';

/** Submits a goal over REST (`POST /v1/goals`, expecting 202) and returns its id. */
export async function postGoal(system: System, body: Record<string, unknown>): Promise<string> {
  const res = await system.http('/v1/goals', { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
  return String(res.body['goalId']);
}

/** Answers every confirmation of a goal over REST as it appears in the SSE (approve unless `approve` says no). */
export async function followAnswering(
  system: System,
  goalId: string,
  approve = true,
  timeoutMs = 60_000,
): Promise<SseEvent[]> {
  const all: SseEvent[] = [];
  let last: string | undefined;
  for (;;) {
    const batch = await system.events(goalId, {
      ...(last ? { lastEventId: last } : {}),
      until: (e) => e.event.kind === 'interaction.requested',
      timeoutMs,
    });
    all.push(...batch);
    const tail = batch[batch.length - 1];
    if (!tail) return all;
    last = tail.id;
    if (tail.event.kind !== 'interaction.requested') return all;
    const iid = tail.event.interaction.interactionId;
    const answer = await system.http(`/v1/goals/${goalId}/interactions/${iid}`, {
      method: 'POST',
      body: JSON.stringify({ approved: approve }),
    });
    if (answer.status !== 200)
      throw new Error(`answer answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}

/**
 * The demo goal ended completed, with its four steps successful, and each step's writes applied once: one operation for
 * an aspect step, one group of distinct operations for a write or relation step (a second application would repeat
 * them), read from the repository's operation history.
 */
export async function expectDemoCompletedOnce(system: System, goalId: string): Promise<void> {
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
  const history = await busRequest(
    system.nc,
    Subjects.resources.operations,
    { limit: 100 },
    OperationsListReply,
    {
      timeoutMs: 5_000,
    },
  );
  for (const step of steps) {
    const id = step.outcome.invocationId;
    const writes = history.entries.filter((e) => e.group === id).map((e) => JSON.stringify(e.operation));
    expect({ id, distinct: new Set(writes).size }).toEqual({ id, distinct: writes.length });
    if (step.plan.tool === 'AspectCreateTool') expect(writes).toHaveLength(1);
  }
}
