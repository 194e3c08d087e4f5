import { Svcm } from '@nats-io/services';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { discoverTools } from '@novelrag/bus';
import {
  BusHeaders,
  MicroServiceNames,
  OperationsListReply,
  Subjects,
  type ToolInvocation,
  ToolOutput,
} from '@novelrag/contracts';
import { FakeOpenAIServer, startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { KvToolResultStore } from '@novelrag/tool-kit';
import {
  applyOperations,
  healthy,
  invokeTool,
  resources,
  startResourceService,
  toolInvocation,
} from './test/harness';
import { startProcess, type StartedProcess } from './test/processes';

const METADATA = {
  description: 'Groups of people',
  children_keys: [],
  dependencies: ['character'],
  required_fields: [{ name: 'name', type: 'string', description: 'the name' }],
  optional_fields: [],
  extensibility: { description: 'free', examples: [] },
  constraints: [],
  extra_sections: [],
};

/**
 * Built tool-runner processes (run `npm run build` first) sharing one queue group, with the model faked at the HTTP
 * boundary and a real resource-service process: load sharing, at-most-once execution across runners, a runner killed
 * with SIGKILL mid-invocation, deadlines, and a third-party tool process discovered through `$SRV.INFO`.
 */
describe('tool-runner processes over real NATS', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let fake: FakeOpenAIServer;
  let rs: StartedProcess;
  const runners = new Map<string, StartedProcess>();
  const bucket = uniqueName('results');

  const startRunner = async (instanceId: string) => {
    const proc = await startProcess(
      'apps/tool-runner/dist/main.js',
      {
        NATS_URL: nats.url,
        NOVELRAG_INSTANCE_ID: instanceId,
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'test-key',
        NOVELRAG_MODEL: 'fake-model',
        NOVELRAG_TOOL_LEASE_MS: '1500',
        NOVELRAG_TOOL_RESULTS_BUCKET: bucket,
        NOVELRAG_SHUTDOWN_GRACE_MS: '2000',
      },
      () => healthy(nc, 'tool-runner', instanceId),
    );
    runners.set(instanceId, proc);
  };

  const send = async (invocation: ToolInvocation, timeoutMs = 15_000) => {
    const msg = await nc.request(Subjects.toolInvoke(invocation.tool), JSON.stringify(invocation), {
      timeout: timeoutMs,
    });
    return { output: ToolOutput.parse(msg.json()), headers: msg.headers };
  };
  const aspectMetadataRequests = () =>
    fake.chatRequests('structured').filter((r) => r.schemaName === 'aspect_metadata');
  const historyOf = async (group: string) =>
    (await resources(nc, Subjects.resources.operations, { limit: 100 }, OperationsListReply)).entries.filter(
      (e) => e.group === group,
    );

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    fake = await FakeOpenAIServer.start();
    rs = await startResourceService(nc, nats.url);
    await Promise.all([startRunner('runner-a'), startRunner('runner-b')]);
    await applyOperations(nc, [{ type: 'aspect.create', name: 'character', childrenKeys: [], metadata: {} }]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([...runners.values()].map((r) => r.stop()));
    await rs?.stop();
    await fake?.close();
    await nc?.close();
    await nats?.stop();
  });

  it('two runners share the invocations of one queue group', async () => {
    let refused = 0;
    // As the orchestrator does: a runner at its concurrency limit answers UNAVAILABLE, and the call is sent again.
    const fetchRoot = async (): Promise<ToolOutput> => {
      for (let attempt = 1; ; attempt++) {
        const output = await invokeTool(nc, toolInvocation('ResourceFetchTool', { uri: '/' }));
        if (output.type === 'result' || output.error.code !== 'UNAVAILABLE' || attempt === 50) return output;
        refused += 1;
      }
    };
    const outputs = await Promise.all(Array.from({ length: 24 }, fetchRoot));
    expect(outputs.filter((o) => o.type !== 'result')).toEqual([]);
    const served = new Map<string, number>();
    for await (const stats of await new Svcm(nc as never)
      .client({ strategy: 'timer', maxWait: 500 })
      .stats(MicroServiceNames.tools)) {
      const fetches = stats.endpoints?.find((e) => e.name === 'ResourceFetchTool')?.num_requests ?? 0;
      served.set(String(stats.metadata?.['instance']), fetches);
    }
    expect([...served.keys()].sort()).toEqual(['runner-a', 'runner-b']);
    expect([...served.values()].every((n) => n > 0)).toBe(true);
    expect([...served.values()].reduce((a, b) => a + b, 0)).toBe(24 + refused);
  });

  it('answers schema-invalid parameters with a coded error naming the field', async () => {
    const { output, headers } = await send(toolInvocation('ResourceFetchTool', { url: '/' }));
    expect(output).toMatchObject({ type: 'error', error: { code: 'VALIDATION_FAILED' } });
    expect(output.type === 'error' && output.error.message).toMatch(/uri/);
    expect(headers?.get(BusHeaders.serviceErrorCode)).toBe('400');
  });

  it('reports a tool exceeding its deadline as TIMEOUT and stays healthy', async () => {
    fake.once({ schemaName: 'aspect_metadata' }, { delayMs: 60_000 });
    const started = Date.now();
    const { output } = await send(
      toolInvocation('AspectCreateTool', { name: 'slow_aspect', description: ['x'] }, { deadlineMs: 1_500 }),
    );
    expect(output).toMatchObject({ type: 'error', error: { code: 'TIMEOUT', retryable: true } });
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const id of runners.keys()) await expect(healthy(nc, 'tool-runner', id)).resolves.toBe(true);
    await expect(
      invokeTool(nc, toolInvocation('ResourceFetchTool', { uri: '/character' })),
    ).resolves.toMatchObject({
      type: 'result',
    });
  });

  it('executes one invocation id once, even when it is sent twice at the same time', async () => {
    fake.once({ schemaName: 'aspect_metadata' }, { json: METADATA });
    const before = aspectMetadataRequests().length;
    const invocation = toolInvocation('AspectCreateTool', { name: 'faction', description: ['groups'] });
    const [first, second] = await Promise.all([send(invocation), send({ ...invocation, attempt: 2 })]);
    expect(first.output.type).toBe('result');
    expect(second.output.type).toBe('result');
    expect([first.output.replayed, second.output.replayed].filter(Boolean)).toHaveLength(1);
    const third = await send({ ...invocation, attempt: 3 });
    expect(third.output).toMatchObject({ type: 'result', replayed: true });
    expect(aspectMetadataRequests().length - before).toBe(1);
    expect(await historyOf(invocation.invocationId)).toHaveLength(1);
  });

  it('a runner killed mid-invocation leaves the retry to the other runner, which completes it once', async () => {
    fake.once({ schemaName: 'aspect_metadata' }, { delayMs: 120_000 });
    fake.once({ schemaName: 'aspect_metadata' }, { json: METADATA });
    const before = aspectMetadataRequests().length;
    const invocation = toolInvocation(
      'AspectCreateTool',
      { name: 'item', description: ['objects'] },
      { deadlineMs: 60_000 },
    );
    const seen = fake.requests.length;
    const firstAttempt = send(invocation, 3_000).catch((err: unknown) => err);
    // The runner that took it is blocked on the model; find it by its claim and kill the process.
    await fake.waitForRequests(seen + 1);
    const store = await KvToolResultStore.open(nc, { bucket });
    const state = await store.read(invocation.invocationId);
    expect(state.kind).toBe('claimed');
    const owner = state.kind === 'claimed' ? state.claim.runner : '';
    const victim = runners.get(owner)!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    runners.delete(owner);
    await expect(firstAttempt).resolves.toMatchObject({ message: expect.stringMatching(/timeout/i) });

    const retry = await send({ ...invocation, attempt: 2 }, 20_000);
    expect(retry.output).toMatchObject({ type: 'result' });
    expect(retry.output.replayed).toBeUndefined();
    expect(aspectMetadataRequests().length - before).toBe(2);
    await expect(store.read(invocation.invocationId)).resolves.toMatchObject({ kind: 'done' });
    expect(await historyOf(invocation.invocationId)).toHaveLength(1);
    const again = await send({ ...invocation, attempt: 3 });
    expect(again.output).toMatchObject({ type: 'result', replayed: true });
  });

  it('a runner stopped with SIGTERM leaves the queue group but finishes the invocation it is running', async () => {
    await startRunner('runner-c');
    fake.once({ schemaName: 'aspect_metadata' }, { delayMs: 1_000, then: { json: METADATA } });
    const seen = fake.requests.length;
    const invocation = toolInvocation('AspectCreateTool', { name: 'era', description: ['periods'] });
    const running = send(invocation, 20_000);
    await fake.waitForRequests(seen + 1);
    const store = await KvToolResultStore.open(nc, { bucket });
    const state = await store.read(invocation.invocationId);
    const owner = state.kind === 'claimed' ? state.claim.runner : '';
    const stopping = runners.get(owner)!;
    runners.delete(owner);
    stopping.child.kill('SIGTERM');
    await expect(running).resolves.toMatchObject({ output: { type: 'result' } });
    await stopping.exited;
    expect(stopping.child.exitCode).toBe(0);
    const [survivor] = runners.keys();
    await expect(healthy(nc, 'tool-runner', survivor!)).resolves.toBe(true);
    await expect(invokeTool(nc, toolInvocation('ResourceFetchTool', { uri: '/era' }))).resolves.toMatchObject(
      {
        type: 'result',
      },
    );
  });

  it('discovers a third-party tool process through $SRV.INFO and invokes it', async () => {
    const example = await startProcess(
      'examples/third-party-tool/dist/main.js',
      { NATS_URL: nats.url },
      async () => (await discoverTools(nc)).tools.some((t) => t.name === 'DiceRoll'),
    );
    try {
      const { tools, invalid } = await discoverTools(nc);
      expect(invalid).toEqual([]);
      expect(tools.find((t) => t.name === 'DiceRoll')).toMatchObject({
        subject: Subjects.toolInvoke('DiceRoll'),
        service: { name: MicroServiceNames.toolService('examples') },
        metadata: { readOnly: true, timeoutMs: 5_000 },
      });
      expect(tools.find((t) => t.name === 'ResourceWriteTool')?.service?.name).toBe(MicroServiceNames.tools);
      const roll = await invokeTool(nc, toolInvocation('DiceRoll', { sides: 6, count: 3 }));
      expect(roll.type === 'result' && roll.result).toMatch(/^3d6: [1-6], [1-6], [1-6] \(total \d+\)$/);
      const words = await invokeTool(nc, toolInvocation('WordCount', { text: '余归 draws her sword' }));
      expect(words).toMatchObject({ type: 'result', result: '5' });
      await expect(invokeTool(nc, toolInvocation('DiceRoll', { sides: 1, count: 3 }))).resolves.toMatchObject(
        {
          type: 'error',
          error: { code: 'VALIDATION_FAILED' },
        },
      );
    } finally {
      await example.stop();
    }
    expect(example.child.exitCode).toBe(0);
  });
});
