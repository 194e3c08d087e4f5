import { connect, type NatsConnection } from '@nats-io/transport-node';
import { describeToolExecutorContract } from '@novelrag/agenturn/testing';
import { MicroServiceNames } from '@novelrag/contracts';
import { startNats, type NatsServerHandle, uniqueName } from '@novelrag/testkit';
import { ToolHost } from '@novelrag/tool-kit';
import { ClaimWatch } from './claim-watch';
import { RemoteToolExecutor } from './remote-tool-executor';

// The remote executor runs the same contract as the in-process one: the contract's tools are served on a private NATS
// server by a tool-kit host (validation, deadlines, at-most-once record), the executor calls them over the bus.
let nats: NatsServerHandle | undefined;
let nc: NatsConnection | undefined;

beforeAll(async () => {
  nats = await startNats({ privateServer: true });
  nc = await connect({ servers: nats.url });
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

describeToolExecutorContract('remote over NATS (tool-kit host)', {
  async create(tools) {
    if (!nc) throw new Error('NATS is not connected');
    const conn = nc;
    const suffix = uniqueName('contract');
    const host = new ToolHost({
      connection: conn,
      serviceName: MicroServiceNames.toolService(suffix),
      version: '1.0.0',
      instanceId: suffix,
      tools,
    });
    await host.start();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const executor = new RemoteToolExecutor(conn, {
      goalId: uniqueName('g-contract'), // its own invocation ids: the host records results in the shared bucket
      firstStep: 0,
      timeoutOf: (tool) => byName.get(tool)?.timeoutMs,
      idempotentOf: (tool) => byName.get(tool)?.hints?.idempotent,
      claimWatch: new ClaimWatch(conn),
    });
    return {
      executor,
      cleanup: async () => {
        await host.stop();
      },
    };
  },
});
