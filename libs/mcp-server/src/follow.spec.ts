import type { TraceEvent } from '@novelrag/contracts';
import type { NovelragApi, TraceItem } from './api-client';
import { type ToolExtra, followGoal } from './follow';

const base = { schemaVersion: 1, goalId: 'g-1', threadId: 'g-1', at: '2026-01-01T00:00:00.000Z' };
const item = (id: string, event: Record<string, unknown>): TraceItem => ({
  id,
  event: { ...base, ...event } as unknown as TraceEvent,
});

/** An API whose trace replays `items` (and then stays open until the follow's signal ends it). */
function apiWith(items: readonly TraceItem[]): NovelragApi {
  return {
    trace: async function* (_goalId: string, signal: AbortSignal) {
      yield* items;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
    call: () => Promise.resolve({}),
  } as unknown as NovelragApi;
}

function extraWith(sent: unknown[]): ToolExtra {
  return {
    signal: new AbortController().signal,
    _meta: { progressToken: 7 },
    sendNotification: (n: unknown) => {
      sent.push(n);
      return Promise.resolve();
    },
  } as unknown as ToolExtra;
}

describe('followGoal', () => {
  it('sends one progress notification per event, the final one included, and stops at the final event', async () => {
    const sent: unknown[] = [];
    const end = await followGoal(
      apiWith([
        item('1', { kind: 'goal.accepted', request: 'x' }),
        item('2', { kind: 'goal.status_changed', from: 'running', to: 'completed' }),
        item('3', { kind: 'goal.completed' }),
        item('4', { kind: 'goal.status_changed', from: 'completed', to: 'running' }),
      ]),
      'g-1',
      extraWith(sent),
      { waitMs: 60_000, stopOnInteraction: () => Promise.resolve(true) },
    );
    expect(end.kind).toBe('final');
    const params = sent.map((n) => (n as { params: { progress: number; message: string } }).params);
    expect(params.map((p) => p.message)).toEqual(['goal.accepted', 'status: completed', 'goal.completed']);
    expect(params.map((p) => p.progress)).toEqual([1, 2, 3]);
  });

  it('answers "timeout" at its bound when the goal does not end', async () => {
    const sent: unknown[] = [];
    const end = await followGoal(
      apiWith([item('1', { kind: 'goal.accepted', request: 'x' })]),
      'g-1',
      extraWith(sent),
      {
        waitMs: 1_000,
        stopOnInteraction: () => Promise.resolve(true),
      },
    );
    expect(end.kind).toBe('timeout');
    expect(sent).toHaveLength(1);
  });
});
