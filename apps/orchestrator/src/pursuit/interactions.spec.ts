import type { InteractionRequest } from '@novelrag/contracts';
import { askedConfirm, askingCall } from '../test/pursuit-fixtures';
import type { GoalCheckpoint } from './checkpoint';
import { GoalInteractions } from './interactions';
import { PursuitStop } from './stop';
import type { GoalTrace } from './trace';

describe('GoalInteractions when the pursuit stops', () => {
  const invocation = askingCall;
  const question: InteractionRequest = { ...askedConfirm, timeoutMs: 30_000 };

  /** Interactions of a pursuit whose goal can be cancelled or handed back (suspend, lost lease). */
  const setUp = () => {
    const stop = new PursuitStop();
    const cancel = { abort: () => stop.stop({ kind: 'cancelled' }) };
    const handBack = { abort: () => stop.stop({ kind: 'handed_back' }) };
    const asked: string[] = [];
    const checkpoint = {
      record: {},
      write: (_change: unknown, reason?: string) => {
        asked.push(reason ?? '');
        return Promise.resolve({});
      },
      refresh: () => Promise.resolve({}),
    } as unknown as GoalCheckpoint;
    const trace = { emit: () => undefined } as unknown as GoalTrace;
    const interactions = new GoalInteractions({
      checkpoint,
      trace,
      running: (id: string) => (id === invocation.invocationId ? invocation : undefined),
      deadline: Date.now() + 60_000,
      defaultTimeoutMs: 30_000,
      signal: stop.signal,
    });
    /** Resolves once the question is recorded as pending (the reply then waits for an answer or an abort). */
    const pending = async () => {
      for (let i = 0; i < 100 && asked.length === 0; i++) await new Promise((r) => setImmediate(r));
      expect(asked).toEqual(['apply asks the user']);
    };
    return { cancel, handBack, interactions, pending };
  };

  it('answers a pending question UNAVAILABLE (retryable) when the pursuit hands the goal back, so the runner records nothing', async () => {
    const { handBack, interactions, pending } = setUp();
    const reply = interactions.request(question);
    await pending();
    handBack.abort();
    await expect(reply).resolves.toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE', retryable: true },
    });
    // A question that arrives after the hand-back gets the same answer.
    await expect(interactions.request(question)).resolves.toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE' },
    });
  });

  it('answers a pending question CANCELLED when the goal itself is cancelled', async () => {
    const { cancel, interactions, pending } = setUp();
    const reply = interactions.request(question);
    await pending();
    cancel.abort();
    await expect(reply).resolves.toMatchObject({ ok: false, error: { code: 'CANCELLED', retryable: false } });
  });
});
