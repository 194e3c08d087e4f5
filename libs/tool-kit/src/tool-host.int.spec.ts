import { connect, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { CancelledError, toolError } from '@novelrag/agenturn';
import { deferred } from '@novelrag/agenturn/testing';
import { discoverTools } from '@novelrag/bus';
import {
  BusHeaders,
  InteractionRequest,
  MicroServiceNames,
  RuntimeEvent,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  ToolOutput,
} from '@novelrag/contracts';
import { startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { defineTool, type HostedTool } from './hosted-tool';
import { MAX_ERROR_MESSAGE_CHARS } from './outputs';
import { KvToolResultStore } from './result-store';
import { ToolHost } from './tool-host';

interface Reply {
  readonly output: ToolOutput;
  readonly headers: MsgHdrs | undefined;
}

describe('ToolHost over real NATS', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  const bucket = uniqueName('tool_results');
  const calls = new Map<string, number>();
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const gate = { blocker: deferred<void>(), entered: deferred<void>() };

  const tools: HostedTool[] = [
    defineTool({
      name: 'echo',
      description: 'echoes its text',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
        required: ['text'],
        additionalProperties: false,
      },
      hints: { readOnly: true, idempotent: true },
      handler: (params) => {
        count('echo');
        return String(params['text']).repeat(Number(params['times'] ?? 1));
      },
    }),
    defineTool({
      name: 'tally',
      description: 'counts its runs (declares no hints, so it runs at most once per invocation)',
      inputSchema: { type: 'object' },
      handler: () => {
        count('tally');
        return `run ${calls.get('tally')}`;
      },
    }),
    defineTool({
      name: 'sleepy',
      description: 'waits for its signal',
      inputSchema: { type: 'object' },
      timeoutMs: 300,
      handler: () => new Promise<string>(() => undefined), // ignores its signal on purpose
    }),
    defineTool({
      name: 'blocker',
      description: 'waits until the test releases it',
      inputSchema: { type: 'object' },
      handler: async (_p, _ctx, signal) => {
        count('blocker');
        gate.entered.resolve();
        await Promise.race([
          gate.blocker.promise,
          new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new CancelledError()))),
        ]);
        return 'released';
      },
    }),
    defineTool({
      name: 'thrower',
      description: 'throws',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new TypeError('boom');
      },
    }),
    defineTool({
      name: 'refuser',
      description: 'answers a coded error',
      inputSchema: { type: 'object' },
      handler: () => toolError('not allowed here', 'CONFLICT'),
    }),
    defineTool({
      name: 'chatty',
      description: 'logs, asks and reports',
      inputSchema: { type: 'object' },
      handler: async (_p, ctx) => {
        ctx.info('starting');
        ctx.progress('done', '1', 'one of one');
        ctx.backlog({ note: 'follow up' }, 7);
        const ok = await ctx.confirm('apply?', { timeoutMs: 2_000 });
        const text = ok ? await ctx.request('name?', { timeoutMs: 2_000 }) : null;
        ctx.output(`ok=${ok} text=${text}`);
        return `ok=${ok} text=${text}`;
      },
    }),
    defineTool({
      name: 'huge',
      description: 'answers too much',
      inputSchema: { type: 'object' },
      handler: () => 'x'.repeat(2_000),
    }),
    defineTool({
      name: 'longthrow',
      description: 'throws an error quoting a large upstream body',
      inputSchema: { type: 'object' },
      handler: () => {
        count('longthrow');
        throw new Error('x'.repeat(250_000));
      },
    }),
    defineTool({
      name: 'hugeerror',
      description: 'answers an error larger than one NATS message',
      inputSchema: { type: 'object' },
      handler: () => {
        count('hugeerror');
        return toolError('y'.repeat(1_100_000), 'FORBIDDEN');
      },
    }),
    defineTool({
      name: 'asker',
      description: 'asks for confirmation and treats any failure to ask as a decline',
      inputSchema: { type: 'object' },
      handler: async (_p, ctx) => {
        count('asker');
        const ok = await ctx.confirm('apply?', { timeoutMs: 2_000 }).catch(() => false);
        return ok ? 'applied' : 'declined';
      },
    }),
  ];

  const invocation = (tool: string, params: Record<string, unknown>, over: Partial<ToolInvocation> = {}) =>
    ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId: 'goal-a',
      step: 0,
      tool,
      params,
      deadline: Date.now() + 5_000,
      runtimeSubject: Subjects.goalRuntime('goal-a'),
      interactSubject: Subjects.goalInteract('goal-a'),
      ...over,
    });

  const invoke = async (
    inv: ToolInvocation | Record<string, unknown>,
    tool?: string,
    timeout = 5_000,
  ): Promise<Reply> => {
    const name = tool ?? (inv as ToolInvocation).tool;
    const msg = await nc.request(Subjects.toolInvoke(name), JSON.stringify(inv), { timeout });
    return { output: ToolOutput.parse(msg.json()), headers: msg.headers };
  };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('kit-test'),
      version: '1.0.0',
      instanceId: 'host-a',
      tools,
      maxConcurrency: 1,
      maxResultChars: 1_000,
      idempotency: { bucket, leaseMs: 1_000 },
      interactions: { orphanWaitMs: 500, retryMs: 50 },
    });
    await host.start();
  });

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
  });

  it('publishes every tool with its metadata for $SRV.INFO discovery', async () => {
    const { tools: found, invalid } = await discoverTools(nc);
    expect(invalid).toEqual([]);
    expect(found.map((t) => t.name)).toEqual([
      'asker',
      'blocker',
      'chatty',
      'echo',
      'huge',
      'hugeerror',
      'longthrow',
      'refuser',
      'sleepy',
      'tally',
      'thrower',
    ]);
    expect(found.find((t) => t.name === 'echo')).toMatchObject({
      subject: 'novelrag.tools.echo.invoke',
      metadata: { description: 'echoes its text', readOnly: true, idempotent: true, destructive: false },
      service: { name: 'novelrag-tools-kit-test' },
      // The host records results, so it claims every at-most-once call before running it (the orchestrator re-sends
      // a call no claim shows after a grace).
      claims: true,
    });
    expect(found.find((t) => t.name === 'sleepy')?.metadata.timeoutMs).toBe(300);
  });

  it('runs a tool once per invocation id and replays the recorded result', async () => {
    const inv = invocation('tally', {});
    const first = await invoke(inv);
    expect(first.output).toMatchObject({ type: 'result', result: 'run 1' });
    expect(first.output.replayed).toBeUndefined();
    const again = await invoke({ ...inv, attempt: 2 });
    expect(again.output).toMatchObject({ type: 'result', result: 'run 1', replayed: true });
    expect(calls.get('tally')).toBe(1);
    const store = await KvToolResultStore.open(nc, { bucket });
    await expect(store.read(inv.invocationId)).resolves.toMatchObject({
      kind: 'done',
      record: { invocationId: inv.invocationId, tool: 'tally', output: { result: 'run 1' } },
    });
  });

  it('runs a read-only tool again on a repeated invocation, without a claim or a record', async () => {
    const inv = invocation('echo', { text: 'ab', times: 2 });
    const before = calls.get('echo') ?? 0;
    const first = await invoke(inv);
    expect(first.output).toMatchObject({ type: 'result', result: 'abab' });
    const again = await invoke({ ...inv, attempt: 2 });
    expect(again.output).toMatchObject({ type: 'result', result: 'abab' });
    expect(again.output.replayed).toBeUndefined();
    expect(calls.get('echo')).toBe(before + 2);
    const store = await KvToolResultStore.open(nc, { bucket });
    await expect(store.read(inv.invocationId)).resolves.toEqual({ kind: 'none' });
  });

  it('rejects parameters that violate the schema before running, naming the field, with micro error headers', async () => {
    const before = calls.get('echo');
    const { output, headers } = await invoke(invocation('echo', { text: 3, extra: true }));
    expect(output).toMatchObject({ type: 'error', error: { code: 'VALIDATION_FAILED', retryable: false } });
    const message = output.type === 'error' ? output.error.message : '';
    expect(message).toContain('text');
    expect(message).toContain('extra');
    expect(headers?.get(BusHeaders.serviceErrorCode)).toBe('400');
    expect(headers?.get(BusHeaders.serviceError)).toMatch(/^VALIDATION_FAILED/);
    const missing = await invoke(invocation('echo', {}));
    expect(missing.output.type === 'error' && missing.output.error.message).toContain('text');
    expect(calls.get('echo')).toBe(before);
  });

  it('rejects a malformed invocation with a coded error', async () => {
    const { output } = await invoke({ tool: 'echo', params: {} }, 'echo');
    expect(output).toMatchObject({ type: 'error', error: { code: 'VALIDATION_FAILED' } });
    const wrongTool = await invoke(invocation('thrower', {}), 'echo');
    expect(wrongTool.output).toMatchObject({ type: 'error', error: { code: 'VALIDATION_FAILED' } });
  });

  it('answers VALIDATION_FAILED to parameters nested too deep to check, instead of no reply at all', async () => {
    // Well under one NATS message, valid JSON, but deeper than zod's recursive JsonValue check can go: the check
    // throws (a stack overflow) rather than failing, and the call used to get no reply (the caller waited out its
    // deadline, and every retry did the same).
    const depth = 20_000;
    const params = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const inv = JSON.stringify(invocation('tally', { x: 1 })).replace('{"x":1}', params);
    const before = calls.get('tally') ?? 0;
    const msg = await nc.request(Subjects.toolInvoke('tally'), inv, { timeout: 5_000 });
    expect(ToolOutput.parse(msg.json())).toMatchObject({
      type: 'error',
      error: { code: 'VALIDATION_FAILED', retryable: false },
    });
    expect(calls.get('tally') ?? 0).toBe(before);
    // and the host keeps serving
    expect((await invoke(invocation('echo', { text: 'ok' }))).output).toMatchObject({ result: 'ok' });
  });

  it('reports a tool that ignores its deadline as TIMEOUT and keeps serving', async () => {
    const started = Date.now();
    const inv = invocation('sleepy', {});
    const { output } = await invoke(inv);
    expect(output).toMatchObject({ type: 'error', error: { code: 'TIMEOUT', retryable: true } });
    expect(Date.now() - started).toBeLessThan(2_000);
    // A retryable failure is not recorded: the retry runs the tool again instead of replaying the failure.
    const retried = await invoke({ ...inv, attempt: 2 });
    expect(retried.output).toMatchObject({ type: 'error', error: { code: 'TIMEOUT' } });
    expect(retried.output.replayed).toBeUndefined();
    await expect(invoke(invocation('echo', { text: 'still here' }))).resolves.toMatchObject({
      output: { type: 'result', result: 'still here' },
    });
  });

  it('turns a thrown exception into TOOL_FAILED and keeps a tool error code', async () => {
    const thrown = await invoke(invocation('thrower', {}));
    expect(thrown.output).toMatchObject({ type: 'error', error: { code: 'TOOL_FAILED' } });
    expect(thrown.output.type === 'error' && thrown.output.error.message).toContain('boom');
    const refused = await invoke(invocation('refuser', {}));
    expect(refused.output).toMatchObject({
      type: 'error',
      error: { code: 'CONFLICT', message: 'not allowed here' },
    });
  });

  it('caps the result size', async () => {
    const { output } = await invoke(invocation('huge', {}));
    expect(output).toMatchObject({ type: 'error', error: { code: 'TOOL_OUTPUT_TOO_LARGE' } });
  });

  it('clips a long error message, so a retry of the invocation replays the recorded failure instead of hanging', async () => {
    const inv = invocation('longthrow', {});
    const first = await invoke(inv);
    expect(first.output).toMatchObject({ type: 'error', error: { code: 'TOOL_FAILED', retryable: false } });
    const message = first.output.type === 'error' ? first.output.error.message : '';
    expect(message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(message).toMatch(/^longthrow failed: xxx/);
    expect(message).toContain('clipped');
    // The orchestrator retries with the same invocation id (e.g. its first request timed out).
    const retry = await invoke({ ...inv, attempt: 2, deadline: Date.now() + 5_000 }, undefined, 3_000);
    expect(retry.output).toMatchObject({ type: 'error', error: { code: 'TOOL_FAILED' }, replayed: true });
    expect(calls.get('longthrow')).toBe(1);
    expect(host.running).toBe(0);
  });

  it('answers an error larger than one NATS message with its own code, clipped, never "retry" after the tool ran', async () => {
    const inv = invocation('hugeerror', {});
    const first = await invoke(inv);
    expect(first.output).toMatchObject({ type: 'error', error: { code: 'FORBIDDEN', retryable: false } });
    const retry = await invoke({ ...inv, attempt: 2, deadline: Date.now() + 5_000 }, undefined, 3_000);
    expect(retry.output).toMatchObject({ type: 'error', error: { code: 'FORBIDDEN' }, replayed: true });
    expect(calls.get('hugeerror')).toBe(1);
  });

  it('ends the call as a retryable failure when a question is answered UNAVAILABLE, so the re-sent invocation asks again', async () => {
    const subjects = {
      goalId: 'goal-u',
      runtimeSubject: Subjects.goalRuntime('goal-u'),
      interactSubject: Subjects.goalInteract('goal-u'),
    };
    // The first orchestrator hands the goal back while the question is pending; the one that resumes it approves.
    const answers: unknown[] = [
      {
        ok: false,
        error: {
          code: 'UNAVAILABLE',
          message: 'the goal was handed to another orchestrator',
          retryable: true,
        },
      },
      { ok: true, data: { approved: true } },
    ];
    const interact = nc.subscribe(Subjects.goalInteract('goal-u'), {
      callback: (_e, m) => {
        m.respond(JSON.stringify(answers.shift()));
      },
    });
    const inv = invocation('asker', {}, subjects);
    const first = await invoke(inv);
    expect(first.output).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE', retryable: true } });
    const resent = await invoke({ ...inv, attempt: 2, deadline: Date.now() + 5_000 });
    expect(resent.output).toMatchObject({ type: 'result', result: 'applied' });
    expect(resent.output.replayed).toBeUndefined();
    expect(calls.get('asker')).toBe(2);
    expect(answers).toEqual([]);
    interact.unsubscribe();
  });

  it('refuses work beyond its concurrency limit with a retryable UNAVAILABLE, then cancels with the goal', async () => {
    gate.entered = deferred<void>();
    gate.blocker = deferred<void>();
    const running = invoke(invocation('blocker', {}, { goalId: 'goal-c' }));
    await gate.entered.promise;
    const busy = await invoke(invocation('echo', { text: 'x' }));
    expect(busy.output).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE', retryable: true } });
    nc.publish(Subjects.goalCancel('goal-c'), JSON.stringify({}));
    await expect(running).resolves.toMatchObject({ output: { type: 'error', error: { code: 'CANCELLED' } } });
  });

  it('sends runtime events and asks the human over the interact subject', async () => {
    const events: RuntimeEvent[] = [];
    const sub = nc.subscribe(Subjects.goalRuntime('goal-i'), {
      callback: (_e, m) => {
        events.push(RuntimeEvent.parse(m.json()));
      },
    });
    const asked: InteractionRequest[] = [];
    const interact = nc.subscribe(Subjects.goalInteract('goal-i'), {
      callback: (_e, m) => {
        const req = InteractionRequest.parse(m.json());
        asked.push(req);
        m.respond(
          JSON.stringify({ ok: true, data: req.kind === 'confirm' ? { approved: true } : { text: '余归' } }),
        );
      },
    });
    const inv = invocation(
      'chatty',
      {},
      {
        goalId: 'goal-i',
        runtimeSubject: Subjects.goalRuntime('goal-i'),
        interactSubject: Subjects.goalInteract('goal-i'),
      },
    );
    const { output } = await invoke(inv);
    expect(output).toMatchObject({ type: 'result', result: 'ok=true text=余归' });
    await nc.flush();
    expect(asked.map((a) => a.kind)).toEqual(['confirm', 'request']);
    expect(asked[0]).toMatchObject({ invocationId: inv.invocationId, message: 'apply?', timeoutMs: 2_000 });
    expect(events.map((e) => e.kind)).toEqual(['info', 'progress', 'backlog', 'output']);
    expect(events[2]).toMatchObject({ kind: 'backlog', content: { note: 'follow up' }, priority: 7 });
    sub.unsubscribe();
    interact.unsubscribe();
  });

  it('treats a timed-out interaction as declined and a CANCELLED reply as cancellation', async () => {
    const subjects = {
      runtimeSubject: Subjects.goalRuntime('goal-t'),
      interactSubject: Subjects.goalInteract('goal-t'),
    };
    let answer: unknown = { ok: true, data: { timedOut: true } };
    const interact = nc.subscribe(Subjects.goalInteract('goal-t'), {
      callback: (_e, m) => {
        m.respond(JSON.stringify(answer));
      },
    });
    const declined = await invoke(invocation('chatty', {}, { goalId: 'goal-t', ...subjects }));
    expect(declined.output).toMatchObject({ type: 'result', result: 'ok=false text=null' });
    answer = { ok: false, error: { code: 'CANCELLED', message: 'goal cancelled', retryable: false } };
    const cancelled = await invoke(invocation('chatty', {}, { goalId: 'goal-t', ...subjects }));
    expect(cancelled.output).toMatchObject({ type: 'error', error: { code: 'CANCELLED' } });
    interact.unsubscribe();
    // Nobody listening is no answer: the call is given back (retryable), never declined.
    const nobody = await invoke(invocation('chatty', {}, { goalId: 'goal-t', ...subjects }));
    expect(nobody.output).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE', retryable: true } });
  });

  it('takes over an invocation whose runner stopped renewing its claim', async () => {
    const store = await KvToolResultStore.open(nc, { bucket });
    const inv = invocation('echo', { text: 'again' });
    await store.claim({
      schemaVersion: SCHEMA_VERSION,
      state: 'running',
      invocationId: inv.invocationId,
      goalId: inv.goalId,
      tool: 'echo',
      runner: 'dead-runner',
      leaseUntil: Date.now() + 400,
      attempt: 1,
    });
    const before = calls.get('echo') ?? 0;
    const { output } = await invoke({ ...inv, attempt: 2 });
    expect(output).toMatchObject({ type: 'result', result: 'again' });
    expect(output.replayed).toBeUndefined();
    expect(calls.get('echo')).toBe(before + 1);
  });

  it('stops taking calls on stop() but finishes the one in flight', async () => {
    gate.entered = deferred<void>();
    gate.blocker = deferred<void>();
    const running = invoke(invocation('blocker', {}));
    await gate.entered.promise;
    const stopping = host.stop(5_000);
    await expect(nc.request(Subjects.toolInvoke('echo'), '{}', { timeout: 1_000 })).rejects.toThrow(
      /no responders/i,
    );
    gate.blocker.resolve();
    await expect(running).resolves.toMatchObject({ output: { type: 'result', result: 'released' } });
    await expect(stopping).resolves.toBe(0);
  });
});

describe('ToolHost when a reply cannot be sent', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let hostNc: NatsConnection;
  let host: ToolHost;
  let runs = 0;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    hostNc = await connect({ servers: nats.url });
    // The host's client now refuses to publish more than 32 KiB, as with a server whose max_payload is that small.
    const info = hostNc.info;
    if (!info) throw new Error('the host connection has no server info');
    info.max_payload = 32 * 1024;
    host = new ToolHost({
      connection: hostNc,
      serviceName: MicroServiceNames.toolService('reply-test'),
      version: '1.0.0',
      instanceId: 'host-r',
      tools: [
        defineTool({
          name: 'bulky',
          description: 'answers a result within the size cap but larger than the max payload',
          inputSchema: { type: 'object' },
          handler: () => {
            runs += 1;
            return 'z'.repeat(60_000);
          },
        }),
      ],
      idempotency: { bucket: uniqueName('tool_results'), leaseMs: 1_000 },
    });
    await host.start();
  });

  afterAll(async () => {
    await host?.stop(1_000);
    await hostNc?.close();
    await nc?.close();
    await nats?.stop();
  });

  it('answers a short, non-retryable coded error after the tool ran, never a retryable UNAVAILABLE', async () => {
    const inv = ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId: 'goal-r',
      step: 0,
      tool: 'bulky',
      params: {},
      deadline: Date.now() + 5_000,
      runtimeSubject: Subjects.goalRuntime('goal-r'),
      interactSubject: Subjects.goalInteract('goal-r'),
    });
    const msg = await nc.request(Subjects.toolInvoke('bulky'), JSON.stringify(inv), { timeout: 3_000 });
    expect(ToolOutput.parse(msg.json())).toMatchObject({
      type: 'error',
      error: { code: 'TOOL_OUTPUT_TOO_LARGE', retryable: false },
    });
    expect(runs).toBe(1);
  });
});

describe('ToolHost when a tool throws a value that has no text', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  let runs = 0;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('throw-test'),
      version: '1.0.0',
      instanceId: 'host-t',
      tools: [
        defineTool({
          name: 'oddthrow',
          description: 'throws an object without a prototype (String() of it throws a TypeError)',
          inputSchema: { type: 'object' },
          handler: () => {
            runs += 1;
            throw Object.assign(Object.create(null) as object, { reason: 'no prototype' });
          },
        }),
      ],
      idempotency: { bucket: uniqueName('tool_results'), leaseMs: 1_000 },
    });
    await host.start();
  });

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
  });

  it('answers TOOL_FAILED (the tool ran), never a retryable UNAVAILABLE that would run it again', async () => {
    const inv = ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId: 'goal-t',
      step: 0,
      tool: 'oddthrow',
      params: {},
      deadline: Date.now() + 5_000,
      runtimeSubject: Subjects.goalRuntime('goal-t'),
      interactSubject: Subjects.goalInteract('goal-t'),
    });
    const first = await nc.request(Subjects.toolInvoke('oddthrow'), JSON.stringify(inv), { timeout: 3_000 });
    expect(ToolOutput.parse(first.json())).toMatchObject({
      type: 'error',
      error: { code: 'TOOL_FAILED', retryable: false },
    });
    // A retry of the same invocation replays the recorded failure: the tool ran once.
    const again = await nc.request(Subjects.toolInvoke('oddthrow'), JSON.stringify({ ...inv, attempt: 2 }), {
      timeout: 3_000,
    });
    expect(ToolOutput.parse(again.json())).toMatchObject({ type: 'error', error: { code: 'TOOL_FAILED' } });
    expect(runs).toBe(1);
  });
});

describe('ToolHost with a logger that throws', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  const thrown = { count: 0, twice: deferred<void>() };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    const down = () => Promise.reject(new Error('results store down'));
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('logger-test'),
      version: '1.0.0',
      instanceId: 'host-l',
      tools: [
        defineTool({
          name: 'recorded',
          description: 'runs at most once, so it needs the (failing) store',
          inputSchema: { type: 'object' },
          handler: () => 'ran',
        }),
      ],
      // The claim fails, so the host logs an error; its logger throws that error too (a broken log sink).
      idempotency: {
        store: { read: down, claim: down, swap: down, record: down, recordOverClaim: down, release: down },
      },
      logger: {
        info: () => undefined,
        warn: () => undefined,
        error: (message) => {
          thrown.count += 1;
          if (thrown.count === 2) thrown.twice.resolve();
          throw new Error(`log sink down (${message})`);
        },
      },
    });
    await host.start();
  });

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
  });

  it('forgets a request whose handling failed, so stop() does not count it as still running', async () => {
    const inv = ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId: 'goal-l',
      step: 0,
      tool: 'recorded',
      params: {},
      deadline: Date.now() + 5_000,
      runtimeSubject: Subjects.goalRuntime('goal-l'),
      interactSubject: Subjects.goalInteract('goal-l'),
    });
    nc.publish(Subjects.toolInvoke('recorded'), JSON.stringify(inv));
    // 'invocation not served', then 'request handling failed': both threw, the request's task ended rejected.
    await thrown.twice.promise;
    await expect(host.stop(5_000)).resolves.toBe(0);
  });
});
