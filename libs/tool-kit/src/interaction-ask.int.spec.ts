import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { deferred } from '@novelrag/agenturn/testing';
import {
  InteractionRequest,
  MicroServiceNames,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  ToolOutput,
} from '@novelrag/contracts';
import { startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { defineTool } from './hosted-tool';
import { ToolHost } from './tool-host';

jest.setTimeout(60_000);

/** A tool that asks before writing and treats any failure to ask as a decline; `onRun` sees each run's invocation. */
const writerTool = (name: string, onRun: (invocationId: string) => unknown) =>
  defineTool({
    name,
    description: 'asks before writing; treats any failure to ask as a decline',
    inputSchema: { type: 'object' },
    handler: async (_p, ctx) => {
      onRun(ctx.invocation.invocationId);
      ctx.info('asking');
      const ok = await ctx.confirm('write 2 elements?').catch(() => false);
      return ok ? 'written' : 'declined';
    },
  });

/**
 * A tool's question while the orchestrator of its goal is away (crashed, taking over): never a decline. The runner keeps
 * the question alive, reaches the orchestrator that resumes the goal, and gives the call back (retryable, not recorded)
 * only when nobody listens for its orphan wait.
 */
describe('a question of a running tool when its orchestrator is away', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  const runs = new Map<string, number>();

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('ask-test'),
      version: '1.0.0',
      instanceId: 'host-ask',
      idempotency: { bucket: uniqueName('tool_results') },
      interactions: { renewMs: 300, retryMs: 50, orphanWaitMs: 1_500 },
      tools: [writerTool('writer', (id) => runs.set(id, (runs.get(id) ?? 0) + 1))],
    });
    await host.start();
  });

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
  });

  const invocation = (goalId: string) =>
    ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId,
      step: 0,
      tool: 'writer',
      params: {},
      deadline: Date.now() + 40_000,
      runtimeSubject: Subjects.goalRuntime(goalId),
      interactSubject: Subjects.goalInteract(goalId),
    });
  const invoke = async (inv: ToolInvocation) => {
    const msg = await nc.request(Subjects.toolInvoke('writer'), JSON.stringify(inv), { timeout: 45_000 });
    return ToolOutput.parse(msg.json());
  };
  /** Resolves when the tool is about to ask (its `asking` runtime event). */
  const asking = (goalId: string) => {
    const d = deferred<void>();
    const sub = nc.subscribe(Subjects.goalRuntime(goalId), {
      callback: () => {
        d.resolve();
        sub.unsubscribe();
      },
    });
    return d.promise;
  };
  /**
   * The distinct questions among what an orchestrator received: the runner re-sends a question it has no reply to yet
   * every `renewMs` (a check that somebody listens), and on a loaded machine a reply can take that long.
   */
  const questions = (asked: readonly InteractionRequest[]) => [
    ...new Set(asked.map((q) => JSON.stringify(q))),
  ];
  const orchestrator = (goalId: string, answer: (req: InteractionRequest) => unknown): Subscription =>
    nc.subscribe(Subjects.goalInteract(goalId), {
      callback: (_e, m) => {
        const reply = answer(InteractionRequest.parse(m.json()));
        if (reply !== undefined) m.respond(JSON.stringify(reply));
      },
    });

  it('gives the call back as retryable (not recorded, not declined) when no orchestrator listens', async () => {
    const inv = invocation('goal-nobody');
    const output = await invoke(inv);
    expect(output).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE', retryable: true } });
    // Not recorded: the re-sent invocation runs again and this time reaches an orchestrator.
    const sub = orchestrator('goal-nobody', () => ({ ok: true, data: { approved: true } }));
    await expect(invoke({ ...inv, attempt: 2 })).resolves.toMatchObject({
      type: 'result',
      result: 'written',
    });
    expect(runs.get(inv.invocationId)).toBe(2);
    sub.unsubscribe();
  });

  it('reaches the orchestrator that resumes the goal after one died holding the question', async () => {
    const goalId = 'goal-takeover';
    const inv = invocation(goalId);
    const heard = deferred<void>();
    const aboutToAsk = asking(goalId);
    const call = invoke(inv);
    await aboutToAsk;
    // The first orchestrator receives the question and dies without answering.
    const dead = orchestrator(goalId, () => {
      heard.resolve();
      return undefined;
    });
    await heard.promise;
    dead.unsubscribe();
    // The one that resumed the goal answers the (same) question when the runner asks again.
    const asked: InteractionRequest[] = [];
    const resumed = orchestrator(goalId, (req) => {
      asked.push(req);
      return { ok: true, data: { approved: true } };
    });
    await expect(call).resolves.toMatchObject({ type: 'result', result: 'written' });
    expect(asked[0]).toMatchObject({ invocationId: inv.invocationId, message: 'write 2 elements?' });
    expect(runs.get(inv.invocationId)).toBe(1);
    resumed.unsubscribe();
  });

  it('gives the call back soon after the orchestrator holding the question disappears (default timing)', async () => {
    // A runner with the default timing (before: nobody listening was tolerated for 60 s, past the ceiling below).
    const ran: string[] = [];
    const plain = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('ask-default'),
      version: '1.0.0',
      instanceId: 'host-ask-default',
      idempotency: { bucket: uniqueName('tool_results') },
      tools: [writerTool('writer_default', (id) => ran.push(id))],
    });
    await plain.start();
    try {
      const goalId = 'goal-vanished';
      const inv = { ...invocation(goalId), tool: 'writer_default', deadline: Date.now() + 120_000 };
      const heard = deferred<void>();
      const aboutToAsk = asking(goalId);
      const call = nc
        .request(Subjects.toolInvoke('writer_default'), JSON.stringify(inv), { timeout: 30_000 })
        .then((m) => ToolOutput.parse(m.json()));
      await aboutToAsk;
      const dead = orchestrator(goalId, () => {
        heard.resolve();
        return undefined; // holds the question, then its process is gone
      });
      await heard.promise;
      dead.unsubscribe();
      // Given back well before the call's deadline (a generous ceiling, the request's 30 s): retryable, not declined.
      const output = await call;
      expect(output).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE', retryable: true } });
      // No answer recorded: the re-sent invocation runs the tool again and asks the orchestrator now listening.
      const asked: InteractionRequest[] = [];
      const resumed = orchestrator(goalId, (req) => {
        asked.push(req);
        return { ok: true, data: { approved: true } };
      });
      const again = await nc.request(
        Subjects.toolInvoke('writer_default'),
        JSON.stringify({ ...inv, attempt: 2 }),
        {
          timeout: 30_000,
        },
      );
      expect(ToolOutput.parse(again.json())).toMatchObject({ type: 'result', result: 'written' });
      expect(ran).toEqual([inv.invocationId, inv.invocationId]);
      expect(questions(asked)).toHaveLength(1);
      resumed.unsubscribe();
    } finally {
      await plain.stop(1_000);
    }
  });

  it('leaves the timeout to the orchestrator (its configured default) when the tool gives none', async () => {
    const asked: InteractionRequest[] = [];
    const sub = orchestrator('goal-default', (req) => {
      asked.push(req);
      return { ok: true, data: { timedOut: true } };
    });
    await expect(invoke(invocation('goal-default'))).resolves.toMatchObject({ result: 'declined' });
    expect(questions(asked)).toHaveLength(1);
    expect(asked[0]!.timeoutMs).toBeUndefined();
    sub.unsubscribe();
  });
});
