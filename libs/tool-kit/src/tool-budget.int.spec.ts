import { connect, type NatsConnection } from '@nats-io/transport-node';
import { CancelledError } from '@novelrag/agenturn';
import { deferred } from '@novelrag/agenturn/testing';
import {
  MicroServiceNames,
  RuntimeEvent,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  ToolOutput,
} from '@novelrag/contracts';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { defineTool } from './hosted-tool';
import { ToolHost } from './tool-host';

const CALL = { purpose: 'draft', model: 'm', latencyMs: 5, attempts: 1, ok: true } as const;

// The goal's token budget at the runner: a tool's reported model calls are published for its goal, and once they used
// more than the invocation's `tokenBudget` the runner stops the tool with BUDGET_EXHAUSTED.
describe('ToolHost: the token budget of an invocation', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  let aborted = deferred<unknown>();

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('budget-test'),
      version: '1.0.0',
      instanceId: 'host-b',
      idempotency: false,
      tools: [
        defineTool({
          name: 'spender',
          description: 'makes two model calls of 600 tokens each',
          inputSchema: { type: 'object' },
          handler: async (_p, ctx, signal) => {
            signal.addEventListener('abort', () => aborted.resolve(signal.reason), { once: true });
            for (let i = 0; i < 2; i++) {
              ctx.modelCall?.({ ...CALL, promptTokens: 500, completionTokens: 100 });
              if (signal.aborted) throw new CancelledError('stopped');
            }
            return 'spent';
          },
        }),
      ],
    });
    await host.start();
  });

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
  });

  const invoke = async (over: Partial<ToolInvocation>) => {
    const goalId = uniqueName('goal');
    const events: RuntimeEvent[] = [];
    const sub = nc.subscribe(Subjects.goalRuntime(goalId), {
      callback: (_e, msg) => {
        events.push(RuntimeEvent.parse(msg.json()));
      },
    });
    const invocation = ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId,
      step: 0,
      tool: 'spender',
      params: {},
      deadline: Date.now() + 10_000,
      runtimeSubject: Subjects.goalRuntime(goalId),
      interactSubject: Subjects.goalInteract(goalId),
      ...over,
    });
    const msg = await nc.request(Subjects.toolInvoke('spender'), JSON.stringify(invocation), {
      timeout: 10_000,
    });
    await nc.flush(); // the runtime events published before the reply have arrived
    sub.unsubscribe();
    return { output: ToolOutput.parse(msg.json()), events };
  };

  it('stops the tool with BUDGET_EXHAUSTED once its model calls use more than the goal had left', async () => {
    aborted = deferred<unknown>();
    const { output, events } = await invoke({ tokenBudget: 1_000 });
    expect(output).toMatchObject({ type: 'error', error: { code: 'BUDGET_EXHAUSTED' } });
    await expect(aborted.promise).resolves.toMatchObject({ code: 'BUDGET_EXHAUSTED' });
    expect(events.filter((e) => e.kind === 'llm.call')).toEqual([
      expect.objectContaining({ purpose: 'draft', promptTokens: 500, completionTokens: 100, ok: true }),
      expect.objectContaining({ promptTokens: 500, completionTokens: 100 }),
    ]);
  });

  it('lets the tool finish within its budget, and without one', async () => {
    await expect(invoke({ tokenBudget: 1_200 })).resolves.toMatchObject({
      output: { type: 'result', result: 'spent' },
    });
    const unlimited = await invoke({});
    expect(unlimited.output).toMatchObject({ type: 'result', result: 'spent' });
    expect(unlimited.events.filter((e) => e.kind === 'llm.call')).toHaveLength(2);
  });
});
