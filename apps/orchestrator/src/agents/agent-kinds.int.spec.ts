import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type ActionDeterminer, ToolCatalog, operationPlan, resolution } from '@novelrag/agenturn';
import { fakeTool } from '@novelrag/agenturn/testing';
import {
  type GoalStore,
  KvGoalStore,
  KvThreadLeases,
  KvThreadStore,
  type ThreadStore,
  TracePublisher,
  ensureTraceStream,
  newGoalRecord,
} from '@novelrag/bus';
import { DEFAULT_AGENT_KIND, GoalSubmission, SCHEMA_VERSION, emptyWorkspace } from '@novelrag/contracts';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { RunningGoals } from '../bus/running-goals';
import { pursueGoal } from '../pursuit/pickup';
import type { PursuitDeps } from '../pursuit/types';
import { type AgentContext, type AgentKindDefinition, AgentRegistry, executeWith } from './agent-kind';
import { inProcessExecutors, silentLog, testSettings } from '../test/pursuit-fixtures';

jest.setTimeout(30_000);

const log = silentLog;

/**
 * A tiny agent kind: it shouts the goal through the `shout` tool once, then resolves with what the tool said. It
 * resumes from the checkpoint: a step already executed is not decided again.
 */
class ShoutAgent implements AgentKindDefinition {
  readonly started: AgentContext[] = [];

  start(ctx: AgentContext) {
    this.started.push(ctx);
    const determiner: ActionDeterminer = {
      determineAction: ({ progress }) => {
        const done = progress.executedSteps.at(-1);
        return Promise.resolve(
          done
            ? resolution('success', done.result ?? '', 'shouted')
            : operationPlan('shout', { text: ctx.goal.description }, 'shout the goal'),
        );
      },
    };
    return {
      pursue: () => executeWith(ctx, determiner),
      checkpointData: () => ({}),
      workspace: () => undefined,
      toolWorkspace: () => undefined,
    };
  }
}

/** An agent kind plugged in through the registry runs on the real durability path (leases, checkpoints, finish). */
describe('agent kinds (real NATS)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let store: GoalStore;
  let threads: ThreadStore;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    await ensureTraceStream(nc);
    store = await KvGoalStore.open(nc);
    threads = await KvThreadStore.open(nc);
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('pursues a goal with a registered kind, its tool calls going through the injected executor', async () => {
    const shout = fakeTool({ name: 'shout', result: (params) => String(params['text']).toUpperCase() });
    const catalog = new ToolCatalog([shout]);
    const agent = new ShoutAgent();
    const deps: PursuitDeps = {
      store,
      threads,
      leases: await KvThreadLeases.open(nc, { leaseMs: 2_000, pollMs: 50 }),
      tools: { live: () => catalog, discoverFor: () => Promise.resolve() },
      executors: inProcessExecutors(catalog),
      agents: new AgentRegistry().register(DEFAULT_AGENT_KIND, agent),
      publisher: new TracePublisher(nc),
      model: {} as PursuitDeps['model'],
      renderer: {} as PursuitDeps['renderer'],
      resources: {} as PursuitDeps['resources'],
      running: new RunningGoals(),
      backlog: { add: () => undefined },
      settings: { ...testSettings, maxSteps: 5, maxIterations: 1 },
      log,
    };
    const submission = GoalSubmission.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: uniqueName('g-kind').replace(/[^A-Za-z0-9_-]/g, '_'),
      goal: 'hello kinds',
      beliefs: [],
      submittedAt: new Date().toISOString(),
      source: 'user',
      agent: 'novelrag',
    });
    await store.create(newGoalRecord(submission));

    const delivery = { attempt: 1, seq: 1, keepAlive: () => undefined };
    await expect(pursueGoal(submission, delivery, deps, new AbortController().signal)).resolves.toBe('ack');

    const record = (await store.get(submission.goalId))!;
    expect(record).toMatchObject({
      agent: 'novelrag',
      status: 'completed',
      attempts: 1,
      outcome: { status: 'completed', response: 'HELLO KINDS', steps: 1 },
    });
    expect(record.steps).toEqual([
      expect.objectContaining({
        index: 0,
        plan: { tool: 'shout', params: { text: 'hello kinds' }, reason: 'shout the goal' },
        outcome: expect.objectContaining({ status: 'success', result: 'HELLO KINDS' }) as unknown,
      }),
    ]);
    expect(shout.calls).toHaveLength(1);
    expect(agent.started).toHaveLength(1);
    expect(agent.started[0]?.resume.executedSteps).toEqual([]);
    const thread = await threads.get(record.threadId);
    expect(thread.history).toEqual([
      expect.objectContaining({ goalId: submission.goalId, status: 'completed' }),
    ]);
    expect(thread.workspace).toEqual(emptyWorkspace()); // the kind keeps no workspace: the thread's stays as it was
  });
});
