import { newGoalRecord } from '@novelrag/bus';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { type Decision, ToolCatalog, operationPlan, resolution } from '@novelrag/agenturn';
import { deferred } from '@novelrag/agenturn/testing';
import {
  BusError,
  type GoalStore,
  KvGoalStore,
  TracePublisher,
  ensureTraceStream,
  KvThreadLeases,
  KvThreadStore,
  type ThreadLeases,
  type ThreadStore,
} from '@novelrag/bus';
import {
  type GoalRecord,
  GoalSubmission,
  SCHEMA_VERSION,
  Streams,
  Subjects,
  TraceEvent,
  type ToolInvocation,
  emptyWorkspace,
  errorEnvelope,
} from '@novelrag/contracts';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { type Planner, defaultAgents } from '../agents';
import { RunningGoals } from '../bus/running-goals';
import { remoteToolExecutors } from '../tools/executor-factory';
import type { ToolRegistry } from '../tools/tool-registry';
import { giveUpGoal, pursueGoal } from './pickup';
import type { PursuitDeps } from './types';
import { silentLog, testSettings } from '../test/pursuit-fixtures';

jest.setTimeout(30_000);

const log = silentLog;

const settings = testSettings;

/** A planner that plays `decisions` in order, one per decision. */
function scripted(decisions: Decision[]): () => Planner {
  return () => {
    const queue = [...decisions];
    return {
      determineAction: () => {
        const next = queue.shift();
        return next ? Promise.resolve(next) : Promise.reject(new Error('script exhausted'));
      },
      workspace: () => emptyWorkspace(),
      lastAssessment: () => undefined,
      toolWorkspace: () => ({ segments: [], excludedUris: [] }),
    } as unknown as Planner;
  };
}

const jsonOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
};

const safeName = (prefix: string) => uniqueName(prefix).replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * What one delivery of a goal must leave behind when things go wrong in between: pursuits called in process over a
 * private nats-server (goal KV, thread KV, thread leases, TRACE stream), with an `echo` tool answered by the test.
 */
describe('goal pursuit durability (real NATS)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let store: GoalStore;
  let threads: ThreadStore;
  let leases: ThreadLeases;
  let toolSub: Subscription;
  const received: ToolInvocation[] = [];
  /**
   * Results by invocation id, in the order the tool ran: a re-sent invocation is answered from here (`replayed`), as a
   * runner replays its recorded result, so each entry is one real execution.
   */
  const executed = new Map<string, string>();
  /** Holds the answer to an invocation while the returned promise is pending (undefined: answer at once). */
  let hold: ((inv: ToolInvocation) => Promise<void> | undefined) | undefined;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    await ensureTraceStream(nc);
    store = await KvGoalStore.open(nc);
    threads = await KvThreadStore.open(nc);
    leases = await KvThreadLeases.open(nc, { leaseMs: 2_000, pollMs: 50 });
    toolSub = nc.subscribe(Subjects.toolInvoke('echo'), {
      callback: (_err, msg: Msg) => {
        const inv = msg.json<ToolInvocation>();
        received.push(inv);
        void (async () => {
          await hold?.(inv);
          const recorded = executed.get(inv.invocationId);
          const result = recorded ?? `echo ${JSON.stringify(inv.params)}`;
          if (recorded === undefined) executed.set(inv.invocationId, result);
          msg.respond(
            JSON.stringify({ type: 'result', result, ...(recorded === undefined ? {} : { replayed: true }) }),
          );
        })();
      },
    });
  });

  afterEach(() => {
    hold = undefined;
  });

  afterAll(async () => {
    toolSub?.unsubscribe();
    await nc?.close();
    await nats?.stop();
  });

  const tools = {
    timeoutOf: () => undefined,
    served: () => Promise.resolve(undefined),
    live: () => new ToolCatalog([]),
    markUnavailable: () => undefined,
  } as unknown as ToolRegistry;
  const depsWith = (planner: () => Planner, over: Partial<PursuitDeps> = {}): PursuitDeps => ({
    store,
    threads,
    leases,
    tools,
    executors: remoteToolExecutors(nc, tools, settings),
    agents: defaultAgents({ planner }),
    publisher: new TracePublisher(nc),
    model: {} as PursuitDeps['model'],
    renderer: {} as PursuitDeps['renderer'],
    resources: {} as PursuitDeps['resources'],
    running: new RunningGoals(),
    backlog: { add: () => undefined },
    settings,
    log,
    ...over,
  });

  let streamSeq = 0;
  /** Stores a new goal as the gateway does; `delivery(n)` is its n-th JetStream delivery. */
  const submit = async (threadId?: string) => {
    streamSeq += 1;
    const seq = streamSeq;
    const submission = GoalSubmission.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: safeName('g'),
      ...(threadId ? { threadId } : {}),
      goal: 'echo something',
      beliefs: [],
      submittedAt: new Date().toISOString(),
      source: 'user',
    });
    await store.create(newGoalRecord(submission));
    return { submission, delivery: (attempt = 1) => ({ attempt, seq, keepAlive: () => undefined }) };
  };

  /** The goal's events as stored in the TRACE stream (anything that is not a trace event is skipped). */
  const storedTrace = async (goalId: string): Promise<TraceEvent[]> => {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(Streams.trace.name);
    const events: TraceEvent[] = [];
    for (let s = info.state.first_seq; s <= info.state.last_seq; s++) {
      const m = await jsm.streams.getMessage(Streams.trace.name, { seq: s }).catch(() => null);
      if (!m || !m.subject.startsWith(`novelrag.trace.${goalId}.`)) continue;
      const parsed = TraceEvent.safeParse(jsonOrNull(m.string()));
      if (parsed.success) events.push(parsed.data);
    }
    return events;
  };
  const kindsOf = async (goalId: string) => (await storedTrace(goalId)).map((e) => e.kind);

  it('completes the thread history and the final trace event on redelivery when finishing failed after the terminal record', async () => {
    const { submission, delivery } = await submit();
    const deps = depsWith(
      scripted([operationPlan('echo', { n: 1 }, 'say it'), resolution('success', 'said', 'done')]),
    );
    const spy = jest
      .spyOn(threads, 'finishGoal')
      .mockRejectedValueOnce(new Error('TIMEOUT: kv update timed out'));
    try {
      // The terminal record is stored, then the thread update fails: the consumer hands the message back.
      await expect(pursueGoal(submission, delivery(1), deps, new AbortController().signal)).rejects.toThrow(
        /TIMEOUT/,
      );
      expect((await store.get(submission.goalId))?.status).toBe('completed');
      await expect(pursueGoal(submission, delivery(2), deps, new AbortController().signal)).resolves.toBe(
        'ack',
      );
      // A further redelivery (a lost ack) adds nothing twice.
      await expect(pursueGoal(submission, delivery(3), deps, new AbortController().signal)).resolves.toBe(
        'ack',
      );
    } finally {
      spy.mockRestore();
    }
    const record = (await store.get(submission.goalId))!;
    const thread = await threads.get(record.threadId);
    expect(thread.history.filter((h) => h.goalId === submission.goalId)).toEqual([
      expect.objectContaining({ status: 'completed', response: 'said' }),
    ]);
    const events = await storedTrace(submission.goalId);
    expect(events.filter((e) => e.kind === 'goal.completed')).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });

  it('refuses the checkpoint writes of a pursuit whose goal was taken over, and drops its delivery', async () => {
    const { submission, delivery } = await submit(safeName('t'));
    // B is a new delivery of the same goal, so it takes A's lease over at once; A renews only every 12 s and does not
    // notice meanwhile (as when A's process was paused past the ack wait).
    const pausedLeases = await KvThreadLeases.open(nc, { leaseMs: 60_000, pollMs: 50 });
    const aGate = deferred();
    const aDispatched = deferred();
    hold = (inv) => {
      if (inv.goalId !== submission.goalId || received.filter((r) => r.goalId === inv.goalId).length > 1)
        return undefined;
      aDispatched.resolve();
      return aGate.promise; // A's tool call is answered only once B is done (B's replay of it at once)
    };
    const depsA = depsWith(
      scripted([
        operationPlan('echo', { by: 'A' }, 'A step 0'),
        resolution('success', 'A says done', 'A done'),
      ]),
      { leases: pausedLeases },
    );
    const depsB = depsWith(
      scripted([
        // B replays A's in-flight step 0 from the checkpoint, then decides two more steps itself.
        operationPlan('echo', { by: 'B', n: 1 }, 'B step 1'),
        operationPlan('echo', { by: 'B', n: 2 }, 'B step 2'),
        resolution('success', 'B says done', 'B done'),
      ]),
    );
    const a = pursueGoal(submission, delivery(1), depsA, new AbortController().signal);
    await aDispatched.promise;
    await expect(pursueGoal(submission, delivery(2), depsB, new AbortController().signal)).resolves.toBe(
      'ack',
    );
    const afterB = (await store.get(submission.goalId))!;
    expect(afterB).toMatchObject({ status: 'completed', outcome: { response: 'B says done' } });
    expect(afterB.steps).toHaveLength(3);

    aGate.resolve(); // A wakes up: its tool answer arrives and it tries to checkpoint the step
    await expect(a).resolves.toBe('drop');
    const final = (await store.get(submission.goalId))!;
    expect(final.revision).toBe(afterB.revision);
    expect(final.steps).toHaveLength(3);
  });

  it('does not count graceful hand-backs as attempts, so rolling restarts never give a goal up', async () => {
    const { submission, delivery } = await submit();
    let dispatched = deferred();
    hold = (inv) => {
      if (inv.goalId !== submission.goalId) return undefined;
      dispatched.resolve();
      return new Promise<void>(() => undefined); // slow tool: the instance shuts down meanwhile
    };
    for (let i = 1; i <= settings.maxAttempts + 1; i++) {
      dispatched = deferred();
      const suspend = new AbortController();
      const deps = depsWith(scripted([operationPlan('echo', { n: 0 }, 'step 0')]));
      const run = pursueGoal(submission, delivery(i), deps, suspend.signal);
      await dispatched.promise;
      suspend.abort(); // SIGTERM: the goal is handed back
      await expect(run).resolves.toBe('release');
      expect((await store.get(submission.goalId))?.attempts).toBe(0);
    }
    hold = undefined;
    const deps = depsWith(scripted([resolution('success', 'finally done', 'ok')]));
    await expect(
      pursueGoal(submission, delivery(settings.maxAttempts + 2), deps, new AbortController().signal),
    ).resolves.toBe('ack');
    expect((await store.get(submission.goalId))?.outcome).toMatchObject({
      status: 'completed',
      response: 'finally done',
    });
  });

  it('still counts a pursuit that never handed its goal back (a crash) as an attempt', async () => {
    const { submission, delivery } = await submit();
    await store.mutate(submission.goalId, (g) => ({
      ...g,
      status: 'running',
      attempts: settings.maxAttempts,
    }));
    const deps = depsWith(scripted([resolution('success', 'never', 'never')]));
    await expect(pursueGoal(submission, delivery(2), deps, new AbortController().signal)).resolves.toBe(
      'ack',
    );
    expect((await store.get(submission.goalId))?.outcome).toMatchObject({
      status: 'failed',
      reason: `gave up after ${settings.maxAttempts} pursuits that did not finish the goal`,
    });
  });

  it('traces the end of a goal cancelled while it waited for its thread', async () => {
    const threadId = safeName('t');
    const holder = (await leases.acquire({ threadId, goalId: 'g-holder', seq: 0, maxWaitMs: 1_000 }))!;
    const { submission, delivery } = await submit(threadId);
    const run = pursueGoal(
      submission,
      delivery(1),
      depsWith(scripted([resolution('success', 'ok', 'ok')])),
      new AbortController().signal,
    );
    await new Promise((r) => setTimeout(r, 300)); // waiting for the thread
    // The gateway cancels a queued goal at once (GoalsService.cancel), without tracing it.
    await store.mutate(submission.goalId, (goal) => {
      const now = new Date().toISOString();
      return {
        ...goal,
        status: 'cancelled',
        cancelRequested: true,
        updatedAt: now,
        outcome: {
          status: 'cancelled',
          response: '',
          reason: 'cancelled before the pursuit started',
          steps: 0,
          tokens: goal.usage,
          finishedAt: now,
        },
      };
    });
    await holder.release();
    await expect(run).resolves.toBe('ack');
    expect(await kindsOf(submission.goalId)).toEqual(['goal.cancelled']);
    // It never ran: the thread's history does not show it.
    expect((await threads.get(threadId)).history.some((h) => h.goalId === submission.goalId)).toBe(false);
  });

  /** Requests to the TRACE stream's API (message gets, direct gets, consumers) while `run` runs. */
  const traceReads = async (run: () => Promise<unknown>): Promise<string[]> => {
    const seen: string[] = [];
    const subs = ['$JS.API.STREAM.MSG.GET.TRACE', '$JS.API.DIRECT.GET.TRACE.>', '$JS.API.CONSUMER.>'].map(
      (subject) =>
        nc.subscribe(subject, {
          callback: (_e, m) => {
            if (m.subject.includes('.TRACE')) seen.push(m.subject);
          },
        }),
    );
    await nc.flush();
    try {
      await run();
      await nc.flush();
    } finally {
      for (const sub of subs) sub.unsubscribe();
    }
    return seen;
  };

  it("numbers a first pickup's events from 0 without reading the TRACE stream; a redelivery reads it", async () => {
    const first = await submit();
    const deps = depsWith(scripted([resolution('success', 'ok', 'ok')]));
    const firstReads = await traceReads(() =>
      pursueGoal(first.submission, first.delivery(1), deps, new AbortController().signal),
    );
    expect(firstReads).toEqual([]);
    const events = await storedTrace(first.submission.goalId);
    expect(events[0]?.kind).toBe('goal.accepted');
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i));

    // A redelivery (a crash after the pickup, say) continues the numbering it finds stored.
    const again = await submit();
    const crashed = depsWith(scripted([]));
    await pursueGoal(again.submission, again.delivery(1), crashed, new AbortController().signal).catch(
      () => undefined,
    );
    const before = (await storedTrace(again.submission.goalId)).length;
    expect(before).toBeGreaterThan(0);
    const resumed = depsWith(scripted([resolution('success', 'ok', 'ok')]));
    const redeliveryReads = await traceReads(() =>
      pursueGoal(again.submission, again.delivery(2), resumed, new AbortController().signal),
    );
    expect(redeliveryReads.length).toBeGreaterThan(0);
    const all = await storedTrace(again.submission.goalId);
    expect(all.map((e) => e.seq)).toEqual(all.map((_e, i) => i));
  });

  it('pursues a goal whose trace subjects carry a message that is not a trace event', async () => {
    const { submission, delivery } = await submit();
    nc.publish(Subjects.trace(submission.goalId, 'junk'), 'not json');
    await nc.flush();
    const deps = depsWith(scripted([resolution('success', 'ok', 'ok')]));
    await expect(pursueGoal(submission, delivery(1), deps, new AbortController().signal)).resolves.toBe(
      'ack',
    );
    expect((await store.get(submission.goalId))?.status).toBe('completed');
    expect(await kindsOf(submission.goalId)).toContain('goal.completed');
  });

  it('gives a goal up as failed with a coded reason and traces its end', async () => {
    const { submission } = await submit();
    const error = errorEnvelope('INTERNAL', 'given up after 3 deliveries in a row that failed: boom');
    await giveUpGoal(submission.goalId, error, depsWith(scripted([])));
    expect(await store.get(submission.goalId)).toMatchObject({
      status: 'failed',
      outcome: { status: 'failed', reason: error.message, error },
    });
    const events = await storedTrace(submission.goalId);
    expect(events).toEqual([expect.objectContaining({ kind: 'goal.failed', error })]);
  });
  /**
   * The goal store as seen through a KV hiccup: the first write that `when` picks fails with `error` (nothing is stored),
   * every other call goes to the real store.
   */
  const goalsFailingOnce = (
    when: (current: GoalRecord, next: GoalRecord) => boolean,
    error: BusError,
  ): GoalStore => {
    let failed = false;
    const mutate: GoalStore['mutate'] = (goalId, change, retries) =>
      store.mutate(
        goalId,
        (current) => {
          const next = change(current);
          if (next && !failed && when(current, next)) {
            failed = true;
            throw error;
          }
          return next;
        },
        retries,
      );
    return new Proxy(store, {
      get: (target, prop, receiver): unknown =>
        prop === 'mutate' ? mutate : (Reflect.get(target, prop, receiver) as unknown),
    });
  };

  /** The thread store whose first workspace save fails with `error` (nothing is stored). */
  const threadsFailingOnce = (error: BusError): ThreadStore => {
    let failed = false;
    const saveWorkspace: ThreadStore['saveWorkspace'] = (threadId, workspace) => {
      if (failed) return threads.saveWorkspace(threadId, workspace);
      failed = true;
      return Promise.reject(error);
    };
    return new Proxy(threads, {
      get: (target, prop, receiver): unknown =>
        prop === 'saveWorkspace' ? saveWorkspace : (Reflect.get(target, prop, receiver) as unknown),
    });
  };

  const idsOf = (goalId: string, invocations: Iterable<string>) =>
    [...invocations].filter((id) => id.startsWith(`${goalId}-s`));

  describe('a transient store failure while checkpointing hands the goal back for resumption', () => {
    const twoSteps = () =>
      scripted([
        operationPlan('echo', { n: 0 }, 'step 0'),
        operationPlan('echo', { n: 1 }, 'step 1'),
        resolution('success', 'both said', 'done'),
      ]);

    it.each([
      {
        what: 'the checkpoint of an executed step',
        failing: () =>
          goalsFailingOnce(
            (current, next) => current.steps.length === 1 && next.steps.length === 2,
            BusError.of('TIMEOUT', 'kv update timed out'),
          ),
        // Step 1 ran but was not recorded: the checkpoint still holds it in flight, so it is re-sent (same id).
        left: { steps: 1, inFlight: 1 },
        resumePlanner: () => scripted([resolution('success', 'both said', 'done')]),
        resent: 1,
      },
      {
        what: 'the in-flight checkpoint of a decided step',
        failing: () =>
          goalsFailingOnce(
            (current, next) => current.steps.length === 1 && next.inFlight?.index === 1,
            BusError.of('UNAVAILABLE', 'kv is unreachable'),
          ),
        // Step 1 was never dispatched: the resumed pursuit decides it again.
        left: { steps: 1, inFlight: undefined },
        resumePlanner: () =>
          scripted([operationPlan('echo', { n: 1 }, 'step 1'), resolution('success', 'both said', 'done')]),
        resent: 0,
      },
    ])('$what', async ({ failing, left, resumePlanner, resent }) => {
      const { submission, delivery } = await submit();
      const goalId = submission.goalId;
      const first = depsWith(twoSteps(), { store: failing() });
      // Handed back with the error (the consumer counts it against its failed-delivery limit and naks with a delay).
      await expect(
        pursueGoal(submission, delivery(1), first, new AbortController().signal),
      ).rejects.toMatchObject({
        code: expect.stringMatching(/^(TIMEOUT|UNAVAILABLE)$/) as unknown,
      });
      const between = (await store.get(goalId))!;
      expect(between).toMatchObject({ status: 'running', steps: [expect.objectContaining({ index: 0 })] });
      expect(between.steps).toHaveLength(left.steps);
      expect(between.inFlight?.index).toBe(left.inFlight);
      expect(between.outcome).toBeUndefined();

      await expect(
        pursueGoal(submission, delivery(2), depsWith(resumePlanner()), new AbortController().signal),
      ).resolves.toBe('ack');
      const final = (await store.get(goalId))!;
      expect(final).toMatchObject({ status: 'completed', outcome: { response: 'both said' } });
      expect(final.steps.map((s) => s.index)).toEqual([0, 1]);
      // Every step ran exactly once; a re-sent one was answered from the runner's record.
      expect(idsOf(goalId, executed.keys())).toEqual([`${goalId}-s0`, `${goalId}-s1`]);
      const sent = idsOf(
        goalId,
        received.map((inv) => inv.invocationId),
      );
      expect(sent.filter((id) => id === `${goalId}-s0`)).toHaveLength(1);
      expect(sent.filter((id) => id === `${goalId}-s1`)).toHaveLength(1 + resent);
      const events = await storedTrace(goalId);
      expect(events.filter((e) => e.kind === 'goal.failed')).toHaveLength(0);
      expect(events.filter((e) => e.kind === 'goal.completed')).toHaveLength(1);
    });

    it('the save of the thread workspace after a step checkpoint', async () => {
      const { submission, delivery } = await submit(safeName('t'));
      const goalId = submission.goalId;
      const first = depsWith(twoSteps(), {
        threads: threadsFailingOnce(BusError.of('NO_RESPONDERS', 'no kv')),
      });
      await expect(
        pursueGoal(submission, delivery(1), first, new AbortController().signal),
      ).rejects.toMatchObject({
        code: 'NO_RESPONDERS',
      });
      const between = (await store.get(goalId))!;
      expect(between.status).toBe('running');
      expect(between.inFlight).toBeUndefined();
      expect(between.steps.map((s) => s.index)).toEqual([0]);

      const resume = depsWith(
        scripted([operationPlan('echo', { n: 1 }, 'step 1'), resolution('success', 'both said', 'done')]),
      );
      await expect(pursueGoal(submission, delivery(2), resume, new AbortController().signal)).resolves.toBe(
        'ack',
      );
      const final = (await store.get(goalId))!;
      expect(final).toMatchObject({ status: 'completed', outcome: { response: 'both said' } });
      expect(final.steps.map((s) => s.index)).toEqual([0, 1]);
      expect(idsOf(goalId, executed.keys())).toEqual([`${goalId}-s0`, `${goalId}-s1`]);
      expect(
        idsOf(
          goalId,
          received.map((inv) => inv.invocationId),
        ),
      ).toEqual([`${goalId}-s0`, `${goalId}-s1`]);
    });

    it('still fails the goal on a store error that is not transient', async () => {
      const { submission, delivery } = await submit();
      const deps = depsWith(twoSteps(), {
        store: goalsFailingOnce(
          (current, next) => current.steps.length === 0 && next.steps.length === 1,
          BusError.of('INTERNAL', 'stored goal does not match its schema'),
        ),
      });
      await expect(pursueGoal(submission, delivery(1), deps, new AbortController().signal)).resolves.toBe(
        'ack',
      );
      expect((await store.get(submission.goalId))?.outcome).toMatchObject({
        status: 'failed',
        error: { code: 'INTERNAL' },
      });
    });
  });
});
