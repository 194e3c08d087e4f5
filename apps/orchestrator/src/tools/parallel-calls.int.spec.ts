// Two calls of one goal running at once over real NATS: what each tool says and asks reaches THAT call (routed by the
// invocation id it sends back), never the other one's.
import { Svcm, type Service } from '@nats-io/services';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { operationPlan } from '@novelrag/agenturn';
import { deferred } from '@novelrag/agenturn/testing';
import {
  MicroServiceNames,
  type PendingInteraction,
  SCHEMA_VERSION,
  Subjects,
  TOOL_QUEUE_GROUP,
  ToolInvocation,
  encodeToolMetadata,
} from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { RemoteExecutionContext, silentLogger } from '@novelrag/tool-kit';
import type { GoalCheckpoint } from '../pursuit/checkpoint';
import { GoalExecutionContext } from '../pursuit/execution-context';
import { GoalInteractions } from '../pursuit/interactions';
import { PursuitStop } from '../pursuit/stop';
import type { GoalTrace } from '../pursuit/trace';
import { RemoteToolExecutor } from './remote-tool-executor';

const GOAL = 'goal-par';

describe('parallel calls of one goal: per-invocation routing', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let service: Service;
  /** Resolves when both calls have reached their tool (so they run at the same time). */
  const arrived: ToolInvocation[] = [];
  const bothArrived = deferred<void>();

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    service = await new Svcm(nc as never).add({
      name: MicroServiceNames.toolService('par'),
      version: '1.0.0',
      queue: TOOL_QUEUE_GROUP,
    });
    service.addEndpoint('ask_name', {
      subject: Subjects.toolInvoke('ask_name'),
      metadata: encodeToolMetadata({
        description: 'asks the user a question',
        inputSchema: { type: 'object' },
        timeoutMs: 60_000,
        readOnly: true,
        destructive: false,
        idempotent: true,
        schemaVersion: 1,
      }),
      handler: (_err, msg) => {
        const invocation = ToolInvocation.parse(msg.json());
        arrived.push(invocation);
        if (arrived.length === 2) bothArrived.resolve();
        void (async () => {
          await bothArrived.promise; // neither asks before both calls run
          const ctx = new RemoteExecutionContext(
            nc,
            invocation,
            invocation.deadline,
            new AbortController().signal,
            silentLogger,
          );
          const who = String(invocation.params['who']);
          ctx.info(`asking about ${who}`);
          const answer = await ctx.request(`Name for ${who}?`);
          msg.respond(JSON.stringify({ type: 'result', result: `${who}=${answer}` }));
        })();
      },
    });
  });

  afterAll(async () => {
    await service?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('gives each of two concurrent calls the answer to its own question, and traces each one’s lines as its own', async () => {
    const asked: PendingInteraction[] = [];
    const nextQuestion: Array<(p: PendingInteraction) => void> = [];
    const checkpoint = {
      // No question recorded by an earlier pursuit, and none answered in the record meanwhile.
      record: { status: 'running' },
      refresh: () => Promise.resolve({ status: 'running' }),
      write: (change: (current: unknown) => { pendingInteraction?: PendingInteraction }) => {
        const pending = change({ status: 'running' }).pendingInteraction;
        if (pending) {
          asked.push(pending);
          nextQuestion.shift()?.(pending);
        }
        return Promise.resolve({});
      },
    } as unknown as GoalCheckpoint;
    const traced: Array<{ invocationId: string; message?: string }> = [];
    const trace = {
      emit: (e: { kind: string; event?: { invocationId: string; message?: string } }) => {
        if (e.kind === 'runtime' && e.event) traced.push(e.event);
      },
    } as unknown as GoalTrace;
    const executor = new RemoteToolExecutor(nc, { goalId: GOAL, firstStep: 0, defaultTimeoutMs: 60_000 });
    const interactions = new GoalInteractions({
      checkpoint,
      trace,
      running: (id) => executor.running(id),
      deadline: Date.now() + 120_000,
      defaultTimeoutMs: 60_000,
      signal: new PursuitStop().signal,
    });
    const ctx = new GoalExecutionContext({
      goalId: GOAL,
      trace,
      backlog: { add: () => undefined },
      interactions,
    });
    const question = () => new Promise<PendingInteraction>((resolve) => nextQuestion.push(resolve));
    const first = question();

    const calls = Promise.all([
      executor.execute(operationPlan('ask_name', { who: 'heroine' }, 'name her'), ctx),
      executor.execute(operationPlan('ask_name', { who: 'villain' }, 'name him'), ctx),
    ]);
    // The questions are asked one after the other; each is answered with what its own call's tool asked about.
    const answerFor = (p: PendingInteraction) =>
      p.kind === 'request' && p.prompt.includes('heroine') ? 'Yu' : 'Mo';
    const q1 = await first;
    const second = question();
    const reply = (p: PendingInteraction) =>
      interactions.answer({
        schemaVersion: SCHEMA_VERSION,
        goalId: GOAL,
        interactionId: p.interactionId,
        text: answerFor(p),
      });
    expect(reply(q1)).toMatchObject({ ok: true });
    const q2 = await second;
    expect(reply(q2)).toMatchObject({ ok: true });

    const [heroine, villain] = await calls;
    expect(heroine).toMatchObject({ status: 'success', result: 'heroine=Yu' });
    expect(villain).toMatchObject({ status: 'success', result: 'villain=Mo' });
    // Each question was recorded as its own call's, and the two calls were distinct invocations.
    const byWho = new Map(arrived.map((inv) => [String(inv.params['who']), inv]));
    expect(new Set(asked.map((p) => p.invocationId))).toEqual(
      new Set([byWho.get('heroine')!.invocationId, byWho.get('villain')!.invocationId]),
    );
    for (const p of asked) {
      const who = p.kind === 'request' && p.prompt.includes('heroine') ? 'heroine' : 'villain';
      expect(p).toMatchObject({ invocationId: byWho.get(who)!.invocationId, step: byWho.get(who)!.step });
    }
    // Each call's log line was traced as that call's event.
    for (const who of ['heroine', 'villain']) {
      expect(traced).toContainEqual(
        expect.objectContaining({
          invocationId: byWho.get(who)!.invocationId,
          message: `asking about ${who}`,
        }),
      );
    }
    expect(executor.running(byWho.get('heroine')!.invocationId)).toBeUndefined();
  });
});
