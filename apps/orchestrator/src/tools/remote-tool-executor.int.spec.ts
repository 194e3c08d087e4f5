import { Svcm, type Service } from '@nats-io/services';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { operationPlan } from '@novelrag/agenturn';
import { RecordingExecutionContext, deferred } from '@novelrag/agenturn/testing';
import { JsonLogger, discoverTools } from '@novelrag/bus';
import {
  MicroServiceNames,
  SCHEMA_VERSION,
  Subjects,
  TOOL_QUEUE_GROUP,
  ToolInvocation,
  encodeToolMetadata,
} from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import {
  IdempotentExecution,
  KvToolResultStore,
  type ToolResultStore,
  silentLogger,
} from '@novelrag/tool-kit';
import { ClaimWatch, type Abandonment } from './claim-watch';
import { RemoteToolExecutor, invocationIdOf } from './remote-tool-executor';
import { ToolRegistry } from './tool-registry';

type Handler = (invocation: ToolInvocation, respond: (body: unknown) => void) => void;

describe('RemoteToolExecutor over real NATS micro endpoints', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let service: Service;
  let store: ToolResultStore;
  let claimWatch: ClaimWatch;
  const handlers = new Map<string, Handler>();
  const seen: ToolInvocation[] = [];

  const tool = (name: string, handler: Handler) => {
    handlers.set(name, handler);
    service.addEndpoint(name, {
      subject: Subjects.toolInvoke(name),
      metadata: encodeToolMetadata({
        description: `test tool ${name}`,
        inputSchema: { type: 'object' },
        timeoutMs: 2_000,
        readOnly: true,
        destructive: false,
        idempotent: true,
        schemaVersion: 1,
      }),
      handler: (_err, msg) => {
        const invocation = ToolInvocation.parse(msg.json());
        seen.push(invocation);
        handlers.get(name)!(invocation, (body) => msg.respond(JSON.stringify(body)));
      },
    });
  };

  // Every executor watches claims: tools that never write one (these micro endpoints) are served as before.
  const executor = (overrides: Partial<ConstructorParameters<typeof RemoteToolExecutor>[1]> = {}) =>
    new RemoteToolExecutor(nc, {
      goalId: 'goal-1',
      firstStep: 3,
      defaultTimeoutMs: 1_000,
      claimWatch,
      ...overrides,
    });
  /** A runner built on the tool kit: claims the invocation (or takes a stale claim over), renews it, records. */
  const toolKitRunner = (runner: string, leaseMs = 2_000) =>
    new IdempotentExecution({ store, runner, leaseMs, logger: silentLogger });
  const ctx = () => new RecordingExecutionContext();

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    store = await KvToolResultStore.open(nc);
    claimWatch = new ClaimWatch(nc, { graceMs: 0, pollMs: 50 });
    service = await new Svcm(nc as never).add({
      name: MicroServiceNames.toolService('test'),
      version: '1.0.0',
      queue: TOOL_QUEUE_GROUP,
    });
    tool('echo', (inv, respond) => respond({ type: 'result', result: JSON.stringify(inv.params) }));
    tool('refuse', (_inv, respond) =>
      respond({ type: 'error', error: { code: 'TOOL_FAILED', message: 'cannot do that', retryable: false } }),
    );
    tool('garbage', (_inv, respond) => respond({ type: 'nonsense' }));
    let flakyCalls = 0;
    tool('flaky', (inv, respond) => {
      flakyCalls += 1;
      if (flakyCalls === 1) {
        // The first attempt is refused (a busy runner): the call did not run, so it is sent again.
        return respond({
          type: 'error',
          error: { code: 'UNAVAILABLE', message: 'runner busy; retry', retryable: true },
        });
      }
      respond({ type: 'result', result: `attempt ${inv.attempt}` });
    });
    tool('slow', () => undefined);
  });

  afterAll(async () => {
    await service?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('sends a contract-valid invocation with a deterministic id and returns the result', async () => {
    const outcome = await executor().execute(operationPlan('echo', { name: '余归' }, 'create her'), ctx());
    expect(outcome).toMatchObject({ status: 'success', result: '{"name":"余归"}', errorMessage: null });
    const inv = seen.find((i) => i.tool === 'echo')!;
    expect(inv).toMatchObject({
      invocationId: invocationIdOf('goal-1', 3),
      goalId: 'goal-1',
      step: 3,
      runtimeSubject: Subjects.goalRuntime('goal-1'),
      interactSubject: Subjects.goalInteract('goal-1'),
      attempt: 1,
    });
  });

  it('feeds a tool error back as a failed step with its code (no retry)', async () => {
    const before = seen.length;
    const outcome = await executor().execute(operationPlan('refuse', {}, 'try'), ctx());
    expect(outcome).toMatchObject({
      status: 'failed',
      errorCode: 'TOOL_FAILED',
      errorMessage: 'cannot do that',
    });
    expect(seen.length - before).toBe(1);
  });

  it('rejects replies outside the ToolOutput contract', async () => {
    const outcome = await executor().execute(operationPlan('garbage', {}, 'try'), ctx());
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'TOOL_FAILED' });
    expect(outcome.errorMessage).toContain('ToolOutput');
  });

  it('sends a refused invocation again with the same invocation id', async () => {
    const outcome = await executor({ defaultTimeoutMs: 3_000, timeoutOf: () => 3_000 }).execute(
      operationPlan('flaky', {}, 'try'),
      ctx(),
    );
    const attempts = seen.filter((i) => i.tool === 'flaky');
    expect(outcome).toMatchObject({ status: 'success', result: 'attempt 2' });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(new Set(attempts.map((a) => a.invocationId)).size).toBe(1);
  });

  it('reports an unknown tool as NO_RESPONDERS and a hanging one as TIMEOUT, within the deadline', async () => {
    const none = await executor({ maxAttempts: 2 }).execute(operationPlan('ghost', {}, 'try'), ctx());
    expect(none).toMatchObject({
      status: 'failed',
      errorCode: 'NO_RESPONDERS',
      errorMessage: 'no tool serves ghost',
    });
    const started = Date.now();
    const slow = await executor({ defaultTimeoutMs: 600 }).execute(operationPlan('slow', {}, 'try'), ctx());
    expect(slow).toMatchObject({ status: 'failed', errorCode: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops at once when the goal is cancelled', async () => {
    const abort = new AbortController();
    const running = executor({ defaultTimeoutMs: 10_000 }).execute(
      operationPlan('slow', {}, 'try'),
      ctx(),
      abort.signal,
    );
    abort.abort();
    await expect(running).resolves.toMatchObject({ status: 'cancelled', errorCode: 'CANCELLED' });
  });

  it('retries at once when the runner holding the invocation stopped renewing its claim', async () => {
    // The "dead" runner claims the invocation and never answers (killed mid-run: its lease is already over); the
    // second runner only starts serving once the first is gone, so attempt 2 can only reach it.
    const received: [string, number][] = [];
    const found: Abandonment[] = [];
    const live = toolKitRunner('live-runner');
    const dead = nc.subscribe(Subjects.toolInvoke('crashy'), {
      queue: TOOL_QUEUE_GROUP,
      callback: (_err, msg) => {
        const inv = ToolInvocation.parse(msg.json());
        received.push(['dead-runner', inv.attempt ?? 1]);
        void (async () => {
          await store.claim({
            schemaVersion: SCHEMA_VERSION,
            state: 'running',
            invocationId: inv.invocationId,
            goalId: inv.goalId,
            tool: inv.tool,
            runner: 'dead-runner',
            leaseUntil: Date.now() - 1_000,
            attempt: inv.attempt ?? 1,
          });
          dead.unsubscribe();
          nc.subscribe(Subjects.toolInvoke('crashy'), {
            queue: TOOL_QUEUE_GROUP,
            max: 1,
            callback: (_e, m) => {
              const retry = ToolInvocation.parse(m.json());
              received.push(['live-runner', retry.attempt ?? 1]);
              void live
                .execute(retry, retry.deadline, () =>
                  Promise.resolve({ type: 'result', result: 'ran on live-runner' }),
                )
                .then((output) => m.respond(JSON.stringify(output)));
            },
          });
        })();
      },
    });
    const dispatched: number[] = [];
    // Ten minutes of budget: attempt 1 alone may wait 200 s, far past this test's timeout, unless abandoned early.
    const outcome = await executor({
      goalId: 'goal-crash', // its own invocation id: the runners record results in the shared bucket
      timeoutOf: () => 10 * 60_000,
      onDispatch: (inv) => dispatched.push(inv.attempt ?? 1),
      claimWatch: {
        lostCall: async (id, options) => {
          const stopped = await claimWatch.lostCall(id, options);
          if (stopped) found.push(stopped);
          return stopped;
        },
      },
    }).execute(operationPlan('crashy', {}, 'try'), ctx());

    expect(outcome).toMatchObject({ status: 'success', result: 'ran on live-runner' });
    expect(found).toEqual([expect.objectContaining({ runner: 'dead-runner' })]);
    expect(dispatched).toEqual([1, 2]);
    expect(received).toEqual([
      ['dead-runner', 1],
      ['live-runner', 2],
    ]);
    // The live runner took the claim over and recorded the result under the same invocation id.
    const state = await store.read(invocationIdOf('goal-crash', 3));
    expect(state).toMatchObject({ kind: 'done', record: { output: { result: 'ran on live-runner' } } });
  });

  it('keeps waiting for a runner that renews its claim, however long it runs', async () => {
    const release = deferred();
    const runner = toolKitRunner('busy-runner', 300); // renews every 100 ms; the watch reads every 50 ms
    const sub = nc.subscribe(Subjects.toolInvoke('steady'), {
      queue: TOOL_QUEUE_GROUP,
      callback: (_err, msg) => {
        const inv = ToolInvocation.parse(msg.json());
        void runner
          .execute(inv, inv.deadline, async () => {
            await release.promise;
            return { type: 'result', result: `attempt ${inv.attempt}` };
          })
          .then((output) => msg.respond(JSON.stringify(output)));
      },
    });
    // The tool runs until the watch has read the claim 40 times (~2 s, well past lease + grace without renewals).
    let reads = 0;
    const watched = nc.subscribe('$JS.API.STREAM.MSG.GET.KV_tool-results', {
      callback: () => {
        if (++reads === 40) release.resolve();
      },
    });
    try {
      const dispatched: number[] = [];
      const outcome = await executor({
        goalId: 'goal-steady',
        timeoutOf: () => 10 * 60_000,
        onDispatch: (inv) => dispatched.push(inv.attempt ?? 1),
        // Some grace, so that a busy test process (runner and watch share its event loop) cannot fake a stale claim.
        claimWatch: new ClaimWatch(nc, { graceMs: 500, pollMs: 50 }),
      }).execute(operationPlan('steady', {}, 'try'), ctx());
      expect(outcome).toMatchObject({ status: 'success', result: 'attempt 1' });
      expect(dispatched).toEqual([1]);
    } finally {
      sub.unsubscribe();
      watched.unsubscribe();
    }
  });

  it('asks again when the result is recorded but the runner holding the request died waiting (issue #18 finding 3)', async () => {
    // The chaos suite's hang: the goal's first orchestrator sent the call to runner A, which asks the human; that
    // orchestrator dies and the goal's new one re-sends the call, which lands on runner B. B only waits for A's claim,
    // and is killed. A finishes, records the result and answers the dead orchestrator. Nobody answers the re-sent call.
    const goalId = 'goal-unsent';
    const invocationId = invocationIdOf(goalId, 3);
    const release = deferred();
    const claimed = deferred();
    const owner = toolKitRunner('owner-runner');
    const invocation = ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId,
      goalId,
      step: 3,
      tool: 'handed',
      params: {},
      deadline: Date.now() + 10 * 60_000,
      runtimeSubject: Subjects.goalRuntime(goalId),
      interactSubject: Subjects.goalInteract(goalId),
      attempt: 1,
    });
    // Runner A: the first send's run (its reply would go to the dead orchestrator, so nobody hears it).
    const ownerRun = owner.execute(invocation, invocation.deadline, async () => {
      claimed.resolve();
      await release.promise;
      return { type: 'result', result: 'ran on owner-runner' };
    });
    await claimed.promise;
    // Runner B, its own process (connection): takes the re-sent call and waits for A's claim.
    const waiterNc = await connect({ servers: nats.url });
    const waiter = new IdempotentExecution({
      store: await KvToolResultStore.open(waiterNc),
      runner: 'waiting-runner',
      leaseMs: 2_000,
      logger: silentLogger,
    });
    const received: [string, number][] = [];
    const held = deferred();
    waiterNc.subscribe(Subjects.toolInvoke('handed'), {
      queue: TOOL_QUEUE_GROUP,
      max: 1,
      callback: (_err, msg) => {
        const inv = ToolInvocation.parse(msg.json());
        received.push(['waiting-runner', inv.attempt ?? 1]);
        void waiter
          .execute(inv, inv.deadline, () => Promise.resolve({ type: 'result', result: 'ran twice' }))
          .then((output) => msg.respond(JSON.stringify(output)))
          .catch(() => undefined); // its connection is closed: it is dead
        held.resolve();
      },
    });
    await waiterNc.flush();
    const found: Abandonment[] = [];
    const dispatched: number[] = [];
    const outcome = executor({
      goalId,
      // Ten minutes of budget: without the watch noticing, the call waits far past this test's timeout.
      timeoutOf: () => 10 * 60_000,
      onDispatch: (inv) => dispatched.push(inv.attempt ?? 1),
      claimWatch: {
        lostCall: async (id, options) => {
          // Some grace, so that a busy test process cannot give up a reply that is on its way.
          const lost = await new ClaimWatch(nc, { graceMs: 3_000, pollMs: 50 }).lostCall(id, options);
          if (lost) found.push(lost);
          return lost;
        },
      },
    }).execute(operationPlan('handed', {}, 'write'), ctx());
    await held.promise;
    await waiterNc.close(); // runner B is killed while it waits
    // Another live runner serves the tool from now on; runner A finishes and records the result.
    const live = toolKitRunner('live-runner');
    const sub = nc.subscribe(Subjects.toolInvoke('handed'), {
      queue: TOOL_QUEUE_GROUP,
      callback: (_err, msg) => {
        const inv = ToolInvocation.parse(msg.json());
        received.push(['live-runner', inv.attempt ?? 1]);
        void live
          .execute(inv, inv.deadline, () => Promise.resolve({ type: 'result', result: 'ran twice' }))
          .then((output) => msg.respond(JSON.stringify(output)));
      },
    });
    try {
      await nc.flush();
      release.resolve();
      await expect(ownerRun).resolves.toMatchObject({ type: 'result', result: 'ran on owner-runner' });
      await expect(outcome).resolves.toMatchObject({ status: 'success', result: 'ran on owner-runner' });
      expect(found).toEqual([expect.objectContaining({ kind: 'result-unsent' })]);
      expect(dispatched).toEqual([1, 2]);
      expect(received).toEqual([
        ['waiting-runner', 1],
        ['live-runner', 2],
      ]);
    } finally {
      sub.unsubscribe();
    }
  }, 60_000);

  it('re-sends a call that reached a runner killed before it claimed it (issue #18 finding 3)', async () => {
    // Runners of this tool claim every call before running it; the one the call reached is killed as it arrives.
    const received: [string, number][] = [];
    const dyingNc = await connect({ servers: nats.url });
    const dying = deferred();
    dyingNc.subscribe(Subjects.toolInvoke('unclaimed'), {
      queue: TOOL_QUEUE_GROUP,
      max: 1,
      callback: (_err, msg) => {
        received.push(['killed-runner', ToolInvocation.parse(msg.json()).attempt ?? 1]);
        dying.resolve();
      },
    });
    await dyingNc.flush();
    const live = toolKitRunner('live-runner');
    const found: Abandonment[] = [];
    const outcome = executor({
      goalId: 'goal-unclaimed',
      timeoutOf: () => 10 * 60_000, // without the watch noticing, far past this test's timeout
      claimWatch: {
        lostCall: async (id, options) => {
          const watch = new ClaimWatch(nc, { graceMs: 1_000, pollMs: 50, claimsExpected: () => true });
          const lost = await watch.lostCall(id, options);
          if (lost) found.push(lost);
          return lost;
        },
      },
    }).execute(operationPlan('unclaimed', {}, 'write'), ctx());
    await dying.promise;
    await dyingNc.close(); // killed: the call it received is gone with it
    const sub = nc.subscribe(Subjects.toolInvoke('unclaimed'), {
      queue: TOOL_QUEUE_GROUP,
      callback: (_err, msg) => {
        const inv = ToolInvocation.parse(msg.json());
        received.push(['live-runner', inv.attempt ?? 1]);
        void live
          .execute(inv, inv.deadline, () => Promise.resolve({ type: 'result', result: 'ran once' }))
          .then((output) => msg.respond(JSON.stringify(output)));
      },
    });
    try {
      await expect(outcome).resolves.toMatchObject({ status: 'success', result: 'ran once' });
      expect(found).toEqual([expect.objectContaining({ kind: 'unclaimed' })]);
      expect(received).toEqual([
        ['killed-runner', 1],
        ['live-runner', 2],
      ]);
    } finally {
      sub.unsubscribe();
    }
  }, 60_000);

  describe('a third-party tool that writes no claims (raw contract, its own process)', () => {
    /** The tool's own micro service on its own connection; `onCall` gets each request (answer it or not). */
    const thirdParty = async (
      name: string,
      onCall: (msg: { respond: (data: string) => boolean; json: () => unknown }) => void,
      idempotent = false,
    ) => {
      const conn = await connect({ servers: nats.url });
      const svc = await new Svcm(conn as never).add({
        name: MicroServiceNames.toolService(`${name}-third-party`),
        version: '0.1.0',
        queue: TOOL_QUEUE_GROUP,
      });
      svc.addEndpoint(name, {
        subject: Subjects.toolInvoke(name),
        metadata: encodeToolMetadata({
          description: `third-party tool ${name}`,
          inputSchema: { type: 'object' },
          readOnly: false,
          destructive: false,
          idempotent,
          schemaVersion: 1,
        }),
        handler: (_err, msg) => onCall(msg),
      });
      await conn.flush();
      return conn;
    };
    const registryOf = async () => {
      const registry = new ToolRegistry(nc, {
        refreshMs: 3_600_000,
        log: new JsonLogger('orchestrator', 'test', 'silent').child('ToolRegistry'),
      });
      await registry.refresh();
      return registry;
    };

    it('gives the call up as NO_RESPONDERS soon after the process holding it died, not at its timeout', async () => {
      const received = deferred();
      const conn = await thirdParty('vanishing', () => received.resolve(), true); // never answers
      const registry = await registryOf();
      const dispatched: number[] = [];
      // Ten minutes of budget: without the ping the first attempt alone would wait 200 s.
      const running = executor({
        goalId: 'goal-vanishing',
        timeoutOf: () => 10 * 60_000,
        idempotentOf: (t) => registry.catalog().get(t)?.hints?.idempotent,
        onDispatch: (inv) => dispatched.push(inv.attempt ?? 1),
        claimWatch: new ClaimWatch(nc, { graceMs: 200, pollMs: 50, served: (t) => registry.served(t) }),
      }).execute(operationPlan('vanishing', {}, 'try'), ctx());
      await received.promise;
      await conn.close(); // the process died holding the call: its service is gone with its connection
      const outcome = await running;
      expect(outcome).toMatchObject({ status: 'failed', errorCode: 'NO_RESPONDERS' });
      expect(dispatched.length).toBeGreaterThanOrEqual(2); // the retries found nobody at once
    });

    it('fails a non-idempotent call whose instance disappeared, without sending it again', async () => {
      const received = deferred();
      const conn = await thirdParty('vanishing_once', () => received.resolve()); // never answers
      const registry = await registryOf();
      const dispatched: number[] = [];
      const running = executor({
        goalId: 'goal-vanishing-once',
        timeoutOf: () => 10 * 60_000,
        idempotentOf: (t) => registry.catalog().get(t)?.hints?.idempotent,
        onDispatch: (inv) => dispatched.push(inv.attempt ?? 1),
        claimWatch: new ClaimWatch(nc, { graceMs: 200, pollMs: 50, served: (t) => registry.served(t) }),
      }).execute(operationPlan('vanishing_once', {}, 'try'), ctx());
      await received.promise;
      await conn.close();
      const outcome = await running;
      expect(outcome).toMatchObject({ status: 'failed', errorCode: 'UNAVAILABLE' });
      expect(outcome.errorMessage).toContain('the tool instance disappeared');
      expect(outcome.errorMessage).toContain('not declared idempotent');
      expect(dispatched).toEqual([1]);
    });

    it('runs a naive tool (no at-most-once record) that takes 70 % of its timeout once, and succeeds', async () => {
      // Before one-attempt-per-call, the executor gave up the first send at a third of the timeout and sent the call
      // again: a tool that keeps no record ran three times and the step failed although it answered.
      const timeoutMs = 9_000;
      const runs: number[] = [];
      const conn = await thirdParty('naive', (msg) => {
        const inv = ToolInvocation.parse(msg.json());
        runs.push(inv.attempt ?? 1);
        const answerAt = inv.deadline - timeoutMs * 0.3; // 70 % of the timeout after it was sent
        setTimeout(
          () => msg.respond(JSON.stringify({ type: 'result', result: `ran ${runs.length} time(s)` })),
          Math.max(0, answerAt - Date.now()),
        );
      });
      try {
        const registry = await registryOf();
        const outcome = await executor({
          goalId: 'goal-naive',
          timeoutOf: () => timeoutMs,
          claimWatch: new ClaimWatch(nc, { served: (t) => registry.served(t) }),
        }).execute(operationPlan('naive', {}, 'try'), ctx());
        expect(outcome).toMatchObject({ status: 'success', result: 'ran 1 time(s)' });
        expect(runs).toEqual([1]);
      } finally {
        await conn.close();
      }
    });

    it('names a reply that came after the deadline', async () => {
      const conn = await thirdParty('tardy', (msg) => {
        const inv = ToolInvocation.parse(msg.json());
        const late = () => msg.respond(JSON.stringify({ type: 'result', result: 'too late' }));
        setTimeout(late, Math.max(0, inv.deadline + 50 - Date.now()));
      });
      try {
        const outcome = await executor({
          goalId: 'goal-tardy',
          timeoutOf: () => 300,
          lateReplyGraceMs: 60_000, // heard however loaded the machine is
        }).execute(operationPlan('tardy', {}, 'try'), ctx());
        expect(outcome).toMatchObject({ status: 'failed', errorCode: 'TIMEOUT' });
        expect(outcome.errorMessage).toContain('tardy replied after the deadline');
      } finally {
        await conn.close();
      }
    });

    it('keeps waiting for a slow one that is still running', async () => {
      let calls = 0;
      const conn = await thirdParty('patient', (msg) => {
        calls += 1;
        setTimeout(() => msg.respond(JSON.stringify({ type: 'result', result: 'took its time' })), 1_500);
      });
      try {
        const registry = await registryOf();
        const outcome = await executor({
          goalId: 'goal-patient',
          timeoutOf: () => 10 * 60_000,
          claimWatch: new ClaimWatch(nc, { graceMs: 200, pollMs: 50, served: (t) => registry.served(t) }),
        }).execute(operationPlan('patient', {}, 'try'), ctx());
        expect(outcome).toMatchObject({ status: 'success', result: 'took its time' });
        expect(calls).toBe(1);
      } finally {
        await conn.close();
      }
    });
  });

  it('invalid parameters never leave the process', async () => {
    const outcome = await executor().execute(operationPlan('bad name!', {}, 'try'), ctx());
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'VALIDATION_FAILED' });
  });

  it('parameters nested too deep to check are a failed outcome, not a throw', async () => {
    let params: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) params = { a: params };
    const outcome = await executor().execute(operationPlan('deep', params, 'try'), ctx());
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'VALIDATION_FAILED' });
    expect(outcome.errorMessage).toContain('nested too deep to check');
  });

  it('discovers the tools with their metadata', async () => {
    const { tools, invalid } = await discoverTools(nc);
    expect(invalid).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['echo', 'flaky', 'garbage', 'refuse', 'slow']);
    expect(tools[0]).toMatchObject({
      metadata: { description: 'test tool echo', timeoutMs: 2000 },
      instances: 1,
    });
  });
});
