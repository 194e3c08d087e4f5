import { Svcm, type Service } from '@nats-io/services';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { operationPlan } from '@novelrag/agenturn';
import { RecordingExecutionContext } from '@novelrag/agenturn/testing';
import { discoverTools } from '@novelrag/bus';
import {
  MicroServiceNames,
  Subjects,
  TOOL_QUEUE_GROUP,
  ToolInvocation,
  encodeToolMetadata,
} from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { RemoteToolExecutor, invocationIdOf } from './remote-tool-executor';

type Handler = (invocation: ToolInvocation, respond: (body: unknown) => void) => void;

describe('RemoteToolExecutor over real NATS micro endpoints', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let service: Service;
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

  const executor = (overrides: Partial<ConstructorParameters<typeof RemoteToolExecutor>[1]> = {}) =>
    new RemoteToolExecutor(nc, { goalId: 'goal-1', firstStep: 3, defaultTimeoutMs: 1_000, ...overrides });
  const ctx = () => new RecordingExecutionContext();

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
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
      if (flakyCalls === 1) return; // first attempt is lost (runner died): the caller times out and retries
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

  it('retries a lost invocation with the same invocation id', async () => {
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
    expect(none).toMatchObject({ status: 'failed', errorCode: 'NO_RESPONDERS' });
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

  it('invalid parameters never leave the process', async () => {
    const outcome = await executor().execute(operationPlan('bad name!', {}, 'try'), ctx());
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'VALIDATION_FAILED' });
  });

  it('discovers the tools with their metadata', async () => {
    const { tools, invalid } = await discoverTools(nc, 500);
    expect(invalid).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['echo', 'flaky', 'garbage', 'refuse', 'slow']);
    expect(tools[0]).toMatchObject({
      metadata: { description: 'test tool echo', timeoutMs: 2000 },
      instances: 1,
    });
  });
});
