import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  Buckets,
  MicroServiceNames,
  SCHEMA_VERSION,
  Subjects,
  ToolOutput,
  type ToolInvocation,
} from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { defineTool } from './hosted-tool';
import { KvToolResultStore } from './result-store';
import { ToolHost } from './tool-host';

// Invocation ids are predictable (`<goalId>-s<n>`): a result recorded by one principal must never be replayed by
// another principal's runner. Each tool service records in its own bucket (which the NATS config lets only its
// identity write), so a record planted anywhere else is never read.
describe('tool results recorded per principal', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  let calls = 0;

  const invocation = (invocationId: string): ToolInvocation => ({
    schemaVersion: SCHEMA_VERSION,
    invocationId,
    goalId: 'g-1',
    step: 1,
    tool: 'Forecast',
    params: {},
    deadline: Date.now() + 60_000,
    runtimeSubject: Subjects.goalRuntime('g-1'),
    interactSubject: Subjects.goalInteract('g-1'),
  });
  const invoke = async (invocationId: string) =>
    ToolOutput.parse(
      (
        await nc.request(Subjects.toolInvoke('Forecast'), JSON.stringify(invocation(invocationId)), {
          timeout: 10_000,
        })
      ).json(),
    );

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('weather'),
      version: '1.0.0',
      instanceId: 'weather-1',
      tools: [
        defineTool({
          name: 'Forecast',
          description: 'Tomorrow',
          inputSchema: { type: 'object' },
          handler: () => `rain #${++calls}`,
        }),
      ],
      idempotency: { required: true },
    });
    await host.start();
  });

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
  });

  it("records in the service's own bucket and never replays a record planted in the shared one", async () => {
    const shared = await KvToolResultStore.open(nc, { bucket: Buckets.toolResults });
    await shared.record({
      schemaVersion: SCHEMA_VERSION,
      invocationId: 'g-1-s1',
      goalId: 'g-1',
      tool: 'Forecast',
      output: { type: 'result', result: 'planted' },
      recordedAt: new Date().toISOString(),
    });
    expect(await invoke('g-1-s1')).toMatchObject({ type: 'result', result: 'rain #1' });
    const own = await KvToolResultStore.open(nc, { bucket: 'tool-results-weather' });
    expect(await own.read('g-1-s1')).toMatchObject({ kind: 'done' });
    // A retry replays the service's own record.
    expect(await invoke('g-1-s1')).toMatchObject({ type: 'result', result: 'rain #1', replayed: true });
    expect(calls).toBe(1);
  });
});
