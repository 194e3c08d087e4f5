import { connect, type NatsConnection } from '@nats-io/transport-node';
import { MicroServiceNames, SCHEMA_VERSION, Subjects, ToolInvocation, ToolOutput } from '@novelrag/contracts';
import { startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { defineTool } from './hosted-tool';
import type { InvocationNotes } from './invocation-notes';
import { KvToolResultStore } from './result-store';
import { ToolHost } from './tool-host';

// A tool that runs at most once gets its invocation's notes (beside its result, in the same bucket): what an earlier
// attempt wrote there is what a retry reads. Tools that skip the at-most-once record get none.
describe('invocation notes over real NATS', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  let store: KvToolResultStore;
  let notes: InvocationNotes;
  const bucket = uniqueName('tool_results');

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.tools,
      version: '1.0.0',
      instanceId: uniqueName('notes-host'),
      idempotency: { bucket },
      tools: [
        defineTool({
          name: 'Planner',
          description: 'keeps its plan in a note (no hints: runs at most once)',
          inputSchema: { type: 'object' },
          handler: async (_p, ctx) => {
            const earlier = await ctx.notes?.read('plan');
            if (earlier !== undefined) return `earlier: ${JSON.stringify(earlier)}`;
            await ctx.notes?.write('plan', { step: 'new' });
            return 'planned';
          },
        }),
        defineTool({
          name: 'Looker',
          description: 'read-only',
          inputSchema: { type: 'object' },
          hints: { readOnly: true },
          handler: (_p, ctx) => `notes: ${ctx.notes === undefined ? 'none' : 'some'}`,
        }),
      ],
    });
    await host.start();
    store = await KvToolResultStore.open(nc, { bucket });
    notes = store.notes();
  }, 30_000);

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
  });

  function invocation(tool: string): ToolInvocation {
    return ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId: 'goal-notes',
      step: 0,
      tool,
      params: {},
      deadline: Date.now() + 30_000,
      runtimeSubject: Subjects.goalRuntime('goal-notes'),
      interactSubject: Subjects.goalInteract('goal-notes'),
    });
  }

  async function invoke(call: ToolInvocation): Promise<ToolOutput> {
    const msg = await nc.request(Subjects.toolInvoke(call.tool), JSON.stringify(call), { timeout: 20_000 });
    return ToolOutput.parse(msg.json());
  }

  it('stores what the tool wrote beside its result, without touching the result', async () => {
    const call = invocation('Planner');
    expect(await invoke(call)).toMatchObject({ type: 'result', result: 'planned' });
    expect(await notes.read(call.invocationId, 'plan')).toEqual({ step: 'new' });
    expect(await notes.read(call.invocationId, 'other')).toBeUndefined();
    expect((await store.read(call.invocationId)).kind).toBe('done');
  });

  it('gives a retry what an earlier attempt wrote', async () => {
    const call = invocation('Planner');
    await notes.write(call.invocationId, 'plan', { step: 'from the first attempt' });
    expect(await invoke({ ...call, attempt: 2 })).toMatchObject({
      type: 'result',
      result: 'earlier: {"step":"from the first attempt"}',
    });
  });

  it('gives none to a tool that runs without the at-most-once record', async () => {
    expect(await invoke(invocation('Looker'))).toMatchObject({ type: 'result', result: 'notes: none' });
  });
});
