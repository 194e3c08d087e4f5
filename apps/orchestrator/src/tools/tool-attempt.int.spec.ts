import { getEventListeners } from 'node:events';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { operationPlan } from '@novelrag/agenturn';
import { RecordingExecutionContext } from '@novelrag/agenturn/testing';
import { SCHEMA_VERSION, Subjects, type ToolInvocation, errorEnvelope } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import type { Abandonment, WatchOptions } from './claim-watch';
import { RemoteToolExecutor } from './remote-tool-executor';
import { type AttemptClaimWatch, sendAttempt } from './tool-attempt';

const invocationOf = (tool: string, step: number): ToolInvocation => ({
  schemaVersion: SCHEMA_VERSION,
  invocationId: `goal-attempt-s${step}`,
  goalId: 'goal-attempt',
  step,
  tool,
  params: {},
  deadline: Date.now() + 30_000,
  runtimeSubject: Subjects.goalRuntime('goal-attempt'),
  interactSubject: Subjects.goalInteract('goal-attempt'),
  attempt: 1,
});

describe('one attempt of a tool call over real NATS', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let step = 0;

  const send = (tool: string, claimWatch: AttemptClaimWatch, signal?: AbortSignal) => {
    const invocation = invocationOf(tool, step++);
    return sendAttempt(nc, invocation, {
      deadline: invocation.deadline,
      budgetMs: 30_000,
      now: Date.now,
      staleClaims: new Set(),
      claimWatch,
      signal,
    });
  };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    nc.subscribe(Subjects.toolInvoke('quick'), {
      callback: (_err, msg) => {
        msg.respond(JSON.stringify({ type: 'result', result: 'done' }));
      },
    });
    nc.subscribe(Subjects.toolInvoke('silent'), { callback: () => undefined });
    // Refuses the first send of each call as busy (the call did not run), answers the re-send.
    nc.subscribe(Subjects.toolInvoke('busy-once'), {
      callback: (_err, msg) => {
        const { attempt } = msg.json<ToolInvocation>();
        const busy = { type: 'error', error: errorEnvelope('UNAVAILABLE', 'busy') };
        msg.respond(JSON.stringify(attempt === 1 ? busy : { type: 'result', result: 'done' }));
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('does not start the claim watch of a call answered before its first look is due', async () => {
    const watched: string[] = [];
    const claimWatch: AttemptClaimWatch = {
      firstLookMs: 60_000,
      lostCall: (id) => {
        watched.push(id);
        return Promise.resolve(undefined);
      },
    };
    await expect(send('quick', claimWatch)).resolves.toMatchObject({ kind: 'replied' });
    expect(watched).toEqual([]);
  });

  it('starts the watch when its first look is due, telling it how long the call already waited', async () => {
    const seen: WatchOptions[] = [];
    const stale: Abandonment = { kind: 'stale-claim', runner: 'runner-dead', leaseUntil: 1, revision: 7 };
    const claimWatch: AttemptClaimWatch = {
      firstLookMs: 20,
      lostCall: (_id, watch) => {
        seen.push(watch);
        return Promise.resolve(stale);
      },
    };
    await expect(send('silent', claimWatch)).resolves.toMatchObject({
      kind: 'lost',
      error: { code: 'UNAVAILABLE' },
    });
    expect(seen).toEqual([expect.objectContaining({ tool: 'silent', waited: 20 })]);
  });

  it('starts a watch that says nothing of its first look at once', async () => {
    const seen: WatchOptions[] = [];
    const claimWatch: AttemptClaimWatch = {
      lostCall: (_id, watch) => {
        seen.push(watch);
        return Promise.resolve(undefined);
      },
    };
    await expect(send('quick', claimWatch)).resolves.toMatchObject({ kind: 'replied' });
    expect(seen).toEqual([expect.objectContaining({ waited: 0 })]);
  });

  it("leaves nothing on the goal's signal once a call ended, and a call pending when the goal is cancelled ends cancelled", async () => {
    const goal = new AbortController();
    const claimWatch: AttemptClaimWatch = { firstLookMs: 60_000, lostCall: () => Promise.resolve(undefined) };
    const withSignal = (tool: string) => send(tool, claimWatch, goal.signal);
    for (let i = 0; i < 3; i++) await expect(withSignal('quick')).resolves.toMatchObject({ kind: 'replied' });
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
    const pending = withSignal('silent');
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(1);
    goal.abort('goal cancelled');
    await expect(pending).resolves.toEqual({ kind: 'cancelled' });
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
    // Already cancelled when sent: ends at once, not at the deadline.
    await expect(withSignal('silent')).resolves.toEqual({ kind: 'cancelled' });
  });

  it('cancels every pending call of the goal at once, with no leak warning however many there are', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const goal = new AbortController();
      const claimWatch: AttemptClaimWatch = {
        firstLookMs: 60_000,
        lostCall: () => Promise.resolve(undefined),
      };
      // A group of 32 calls and its head, as a goal may run in one step.
      const pending = Array.from({ length: 33 }, () => send('silent', claimWatch, goal.signal));
      await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on the next tick
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      goal.abort('goal cancelled');
      for (const end of await Promise.all(pending)) expect(end).toEqual({ kind: 'cancelled' });
      expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it("leaves no listener on the goal's signal when the attempt throws before sending", async () => {
    const goal = new AbortController();
    const invocation = invocationOf('quick', step++);
    const brokenClock = (): number => {
      throw new Error('clock broken');
    };
    const attempt = sendAttempt(nc, invocation, {
      deadline: invocation.deadline,
      budgetMs: 30_000,
      now: brokenClock,
      staleClaims: new Set(),
      signal: goal.signal,
    });
    await expect(attempt).rejects.toThrow('clock broken');
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
  });

  it("leaves nothing on the goal's signal after a re-sent call, and a goal cancelled during a send ends the call unsent again", async () => {
    const goal = new AbortController();
    const dispatched: number[] = [];
    const executor = new RemoteToolExecutor(nc, {
      goalId: 'goal-resend',
      firstStep: 0,
      onDispatch: (inv) => {
        dispatched.push(inv.attempt ?? 1);
        // The second call's first send is refused, and the goal cancelled before its re-send.
        if (dispatched.length === 3) queueMicrotask(() => goal.abort('goal cancelled'));
      },
    });
    const call = () =>
      executor.execute(operationPlan('busy-once', {}, 'try'), new RecordingExecutionContext(), goal.signal);
    await expect(call()).resolves.toMatchObject({ status: 'success', result: 'done' });
    expect(dispatched).toEqual([1, 2]);
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
    await expect(call()).resolves.toMatchObject({ status: 'cancelled', errorCode: 'CANCELLED' });
    expect(dispatched).toEqual([1, 2, 1]);
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
  });

  it("leaves nothing on the goal's signal when a call is lost: nobody serves it, or the claim watch finds it lost", async () => {
    const goal = new AbortController();
    const quiet: AttemptClaimWatch = { firstLookMs: 60_000, lostCall: () => Promise.resolve(undefined) };
    await expect(send('nobody', quiet, goal.signal)).resolves.toMatchObject({
      kind: 'lost',
      error: { code: 'NO_RESPONDERS' },
    });
    const stale: Abandonment = { kind: 'stale-claim', runner: 'runner-dead', leaseUntil: 1, revision: 7 };
    const finds: AttemptClaimWatch = { firstLookMs: 0, lostCall: () => Promise.resolve(stale) };
    await expect(send('silent', finds, goal.signal)).resolves.toMatchObject({
      kind: 'lost',
      error: { code: 'UNAVAILABLE' },
    });
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
  });

  it('refuses a call whose goal-wide fields are invalid, naming the field, on every call of the goal', async () => {
    const executor = new RemoteToolExecutor(nc, {
      goalId: 'goal-attempt',
      firstStep: 0,
      lang: 'not a language',
    });
    for (const tool of ['quick', 'quick']) {
      const outcome = await executor.execute(operationPlan(tool, {}, 'try'), new RecordingExecutionContext());
      expect(outcome).toMatchObject({ status: 'failed', errorCode: 'VALIDATION_FAILED' });
      expect(outcome.errorMessage).toContain('lang');
    }
  });

  it('names the invalid fields of the goal and of the call together', async () => {
    const executor = new RemoteToolExecutor(nc, {
      goalId: 'goal-attempt',
      firstStep: 0,
      lang: 'not a language',
    });
    const outcome = await executor.execute(
      operationPlan('bad name!', {}, 'try'),
      new RecordingExecutionContext(),
    );
    expect(outcome.errorMessage).toMatch(/lang.*tool|tool.*lang/);
  });
});
