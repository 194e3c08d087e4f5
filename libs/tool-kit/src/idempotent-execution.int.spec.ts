import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  KvKeys,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  type ToolOutput,
  errorEnvelope,
} from '@novelrag/contracts';
import { startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { IdempotentExecution } from './idempotent-execution';
import { silentLogger } from './logger';
import { errorOutput } from './outputs';
import { ToolResultStore } from './result-store';

describe('IdempotentExecution over real NATS', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let store: ToolResultStore;
  let execution: IdempotentExecution;
  const bucket = uniqueName('tool_results');

  const invocation = () =>
    ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId: 'goal-e',
      step: 0,
      tool: 'probe',
      params: {},
      deadline: Date.now() + 5_000,
      runtimeSubject: Subjects.goalRuntime('goal-e'),
      interactSubject: Subjects.goalInteract('goal-e'),
    });

  /** A run that counts how often the tool ran. */
  const counted = (output: ToolOutput) => {
    const runs = { count: 0 };
    const run = () => {
      runs.count += 1;
      return Promise.resolve(output);
    };
    return { runs, run };
  };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    store = await ToolResultStore.open(nc, { bucket });
    execution = new IdempotentExecution({ store, runner: 'runner-e', leaseMs: 1_000, logger: silentLogger });
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('replaces a stored value it cannot read (compare-and-swap) and runs the invocation, instead of spinning on it', async () => {
    const inv = invocation();
    // What an older version (or a record outside the contract) left under the key: `create` can never claim it.
    const kv = await new Kvm(nc).open(bucket);
    await kv.put(KvKeys.toolResult(inv.invocationId), JSON.stringify({ something: 'else' }));
    const { runs, run } = counted({ type: 'result', result: 'fresh' });
    const started = Date.now();
    await expect(execution.execute(inv, Date.now() + 2_000, run)).resolves.toMatchObject({
      type: 'result',
      result: 'fresh',
    });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(runs.count).toBe(1);
    await expect(store.read(inv.invocationId)).resolves.toMatchObject({
      kind: 'done',
      record: { output: { result: 'fresh' } },
    });
  });

  it('records an output outside the ToolOutput contract as a short TOOL_FAILED, so a retry replays it instead of running again', async () => {
    const inv = invocation();
    // An error message longer than the contract allows (MAX_TEXT_CHARS), as a run could produce before clipping.
    const { runs, run } = counted(errorOutput(errorEnvelope('NOT_FOUND', 'z'.repeat(250_000))));
    const first = await execution.execute(inv, Date.now() + 2_000, run);
    expect(first).toMatchObject({ type: 'error', error: { code: 'TOOL_FAILED', retryable: false } });
    expect(JSON.stringify(first).length).toBeLessThan(10_000);
    const retry = await execution.execute(inv, Date.now() + 2_000, run);
    expect(retry).toMatchObject({ type: 'error', error: { code: 'TOOL_FAILED' }, replayed: true });
    expect(runs.count).toBe(1);
  });
});
