import type { ContextLogger, QueuedTrace, TracePublisher } from '@novelrag/bus';
import { z } from 'zod';
import { GoalTrace } from './trace';

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** A publisher whose lots are answered when the test says so; a lot's events named `bad…` are refused. */
class HeldPublisher {
  readonly lots: string[][] = [];
  private readonly answers: (() => void)[] = [];

  publishAll(lot: readonly QueuedTrace[]): Promise<PromiseSettledResult<unknown>[]> {
    const reasons = lot.map((q) => (q.draft as { reason?: string }).reason ?? '');
    this.lots.push(reasons);
    return new Promise((resolve) =>
      this.answers.push(() =>
        resolve(
          reasons.map((r) =>
            r.startsWith('bad')
              ? { status: 'rejected', reason: new Error(r) }
              : { status: 'fulfilled', value: r },
          ),
        ),
      ),
    );
  }

  /** Answers the oldest unanswered lot. */
  answer(): void {
    this.answers.shift()?.();
  }
}

const resolution = (reason: string) => ({
  kind: 'resolution' as const,
  status: 'success' as const,
  response: '',
  reason,
});

describe('GoalTrace', () => {
  it('publishes what was emitted together as one lot, the next lot once it is stored, in order', async () => {
    const publisher = new HeldPublisher();
    const warnings: unknown[] = [];
    const log = { warn: (_m: string, fields: unknown) => warnings.push(fields) } as unknown as ContextLogger;
    const trace = new GoalTrace(publisher as unknown as TracePublisher, 'g-1', 't-1', log, usage);
    for (const r of ['a', 'b', 'bad-c']) trace.emit(resolution(r));
    let flushed = false;
    void trace.flush().then(() => (flushed = true));
    await new Promise((r) => setImmediate(r));
    expect(publisher.lots).toEqual([['a', 'b', 'bad-c']]);
    // Emitted while the first lot is being stored: the next lot, sent only after the first one's acks.
    trace.emit(resolution('d'));
    trace.emit(resolution('e'));
    await new Promise((r) => setImmediate(r));
    expect(publisher.lots).toHaveLength(1);
    publisher.answer();
    await new Promise((r) => setImmediate(r));
    expect(publisher.lots).toEqual([
      ['a', 'b', 'bad-c'],
      ['d', 'e'],
    ]);
    expect(flushed).toBe(false);
    publisher.answer();
    await trace.flush();
    expect(flushed).toBe(true);
    // A refused event is logged and skipped; the pursuit goes on.
    expect(warnings).toEqual([
      expect.objectContaining({ goalId: 'g-1', kind: 'resolution', error: 'bad-c' }),
    ]);
    // After a drained queue the next emit starts a new lot.
    trace.emit(resolution('f'));
    await new Promise((r) => setImmediate(r));
    expect(publisher.lots).toHaveLength(3);
    publisher.answer();
    await trace.flush();
  });

  it('replaces a final event the contract refused once, and nothing else', async () => {
    // A publisher whose contract check refuses every event it is given.
    const kinds: string[] = [];
    const refusing = {
      publishAll: (lot: readonly QueuedTrace[]) => {
        kinds.push(...lot.map((q) => q.draft.kind));
        const error = z.object({ x: z.string() }).safeParse({}).error;
        return Promise.resolve(lot.map(() => ({ status: 'rejected' as const, reason: error })));
      },
    };
    const log = { warn: () => undefined } as unknown as ContextLogger;
    const trace = new GoalTrace(refusing as unknown as TracePublisher, 'g-2', 't-2', log, usage);
    trace.emit(resolution('a'));
    trace.emit({
      kind: 'goal.failed',
      outcome: {
        status: 'failed',
        response: 'r',
        reason: 'x',
        steps: 1,
        tokens: usage,
        finishedAt: new Date().toISOString(),
      },
    });
    await trace.flush();
    // The refused `resolution` is not replaced; the refused final event is, once (its bare form was refused too).
    expect(kinds).toEqual(['resolution', 'goal.failed', 'goal.failed']);
  });

  it('puts events emitted a few promise steps apart (a model reply, then what the phase made of it) in one lot', async () => {
    const publisher = new HeldPublisher();
    const log = { warn: () => undefined } as unknown as ContextLogger;
    const trace = new GoalTrace(publisher as unknown as TracePublisher, 'g-1', 't-1', log, usage);
    trace.emit(resolution('llm.call'));
    for (let step = 0; step < 5; step++) await Promise.resolve();
    trace.emit(resolution('assessment'));
    await new Promise((r) => setImmediate(r));
    expect(publisher.lots).toEqual([['llm.call', 'assessment']]);
    publisher.answer();
    await trace.flush();
  });

  it('sends a final event at once when nothing is being stored: it is a lot of its own', async () => {
    const publisher = new HeldPublisher();
    const log = { warn: () => undefined } as unknown as ContextLogger;
    const trace = new GoalTrace(publisher as unknown as TracePublisher, 'g-1', 't-1', log, usage);
    trace.emit({ kind: 'goal.completed', outcome: {} } as never);
    for (let step = 0; step < 2; step++) await Promise.resolve();
    expect(publisher.lots).toHaveLength(1);
    publisher.answer();
    await trace.flush();
  });
});
