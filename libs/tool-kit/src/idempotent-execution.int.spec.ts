import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { deferred } from '@novelrag/agenturn/testing';
import {
  KvKeys,
  MicroServiceNames,
  SCHEMA_VERSION,
  Subjects,
  ToolInvocation,
  ToolOutput,
  errorEnvelope,
} from '@novelrag/contracts';
import { startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { defineTool } from './hosted-tool';
import { IdempotentExecution } from './idempotent-execution';
import { silentLogger } from './logger';
import { errorOutput } from './outputs';
import { KvToolResultStore, type ToolResultStore } from './result-store';
import { ToolHost } from './tool-host';

describe('IdempotentExecution over real NATS', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let store: ToolResultStore;
  let execution: IdempotentExecution;
  const bucket = uniqueName('tool_results');

  const invocation = (tool = 'probe') =>
    ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: uniqueName('inv'),
      goalId: 'goal-e',
      step: 0,
      tool,
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
    store = await KvToolResultStore.open(nc, { bucket });
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

  describe('a runner whose claim another runner took over', () => {
    /**
     * Runner B's clock is ahead of runner A's by far more than A's lease: to B, A's lease has run out, exactly as after
     * A stalled (GC pause, blocked event loop) past it, so B takes the invocation over while A's tool still runs.
     */
    const SKEW_MS = 60_000;
    const runnerB = () =>
      new IdempotentExecution({
        store,
        runner: 'runner-b',
        leaseMs: 1_000,
        logger: silentLogger,
        now: () => Date.now() + SKEW_MS,
      });
    const hosts: ToolHost[] = [];
    const hostA = async (
      name: string,
      leaseMs: number,
      handler: Parameters<typeof defineTool>[0]['handler'],
    ) => {
      const host = new ToolHost({
        connection: nc,
        serviceName: MicroServiceNames.toolService(`lease-${name}`),
        version: '1.0.0',
        instanceId: 'runner-a',
        tools: [
          defineTool({ name, description: 'runs on runner A', inputSchema: { type: 'object' }, handler }),
        ],
        idempotency: { bucket, leaseMs },
      });
      hosts.push(host);
      await host.start();
    };
    const request = async (inv: ToolInvocation): Promise<ToolOutput> => {
      const msg = await nc.request(Subjects.toolInvoke(inv.tool), JSON.stringify(inv), { timeout: 5_000 });
      return ToolOutput.parse(msg.json());
    };

    afterAll(async () => {
      await Promise.all(hosts.map((h) => h.stop(1_000)));
    });

    it('aborts its tool, records nothing and answers a retryable UNAVAILABLE once a renewal finds the claim taken over', async () => {
      const started = deferred<void>();
      const tool = { aborted: false, ended: 0 };
      await hostA('slow', 300, async (_p, _ctx, signal) => {
        started.resolve();
        // Bounded: a tool that is never told to stop still ends after 2 s, as a long tool run would.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 2_000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        tool.aborted = signal.aborted;
        tool.ended = Date.now();
        return 'from A';
      });
      const inv = invocation('slow');
      const sent = Date.now();
      const answerA = request(inv);
      await within(started.promise, 2_000, "A's tool did not start");
      const bRuns = { count: 0 };
      // B holds the invocation well past A's next renewals (every 100 ms), then records its own result.
      const answerB = runnerB().execute(inv, Date.now() + SKEW_MS + 5_000, async () => {
        bRuns.count += 1;
        await sleep(600);
        return { type: 'result', result: 'from B' };
      });
      const [a, b] = await Promise.all([answerA, answerB]);
      expect(b).toMatchObject({ type: 'result', result: 'from B' });
      expect(bRuns.count).toBe(1);
      expect(a).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE', retryable: true } });
      expect(tool.aborted).toBe(true);
      expect(tool.ended - sent).toBeLessThan(1_500); // stopped by its signal, not by running to its end
      // A's tool stopped right away, and whatever it did after losing the claim left no record: B's result stands.
      await expect(store.read(inv.invocationId)).resolves.toMatchObject({
        kind: 'done',
        record: { output: { result: 'from B' } },
      });
    });

    it('records nothing and answers a retryable UNAVAILABLE when its tool ends after the take-over but before a renewal noticed it', async () => {
      const started = deferred<void>();
      const takenOver = deferred<void>();
      const bMayFinish = deferred<void>();
      // A long lease: A's first renewal comes seconds after its tool has ended, so only the recording can notice.
      await hostA('quick', 10_000, async () => {
        started.resolve();
        await within(takenOver.promise, 2_000, 'B did not take the invocation over');
        return 'from A';
      });
      const inv = invocation('quick');
      const answerA = request(inv);
      await within(started.promise, 2_000, "A's tool did not start");
      const answerB = runnerB().execute(inv, Date.now() + SKEW_MS + 5_000, async () => {
        takenOver.resolve();
        await within(bMayFinish.promise, 3_000, 'the test did not let B finish');
        return { type: 'result', result: 'from B' };
      });
      const a = await answerA;
      // While B still runs, the key is B's claim: A neither recorded its result nor answered it.
      const whileBRuns = await store.read(inv.invocationId);
      bMayFinish.resolve();
      const b = await answerB;
      expect(a).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE', retryable: true } });
      expect(whileBRuns).toMatchObject({ kind: 'claimed', claim: { runner: 'runner-b' } });
      expect(b).toMatchObject({ type: 'result', result: 'from B' });
      await expect(store.read(inv.invocationId)).resolves.toMatchObject({
        kind: 'done',
        record: { output: { result: 'from B' } },
      });
    });
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `promise`, or a rejection naming what did not happen after `ms`: no wait in these tests is unbounded. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
