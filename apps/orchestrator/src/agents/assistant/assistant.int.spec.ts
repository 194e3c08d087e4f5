import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ToolCatalog } from '@novelrag/agenturn';
import { deferred, fakeTool, ScriptedChatModel } from '@novelrag/agenturn/testing';
import {
  type GoalStore,
  KvGoalStore,
  KvThreadStore,
  type ThreadStore,
  ensureTraceStream,
  newGoalRecord,
} from '@novelrag/bus';
import {
  AnswerDelta,
  AssistantCheckpoint,
  GoalSubmission,
  SCHEMA_VERSION,
  Subjects,
} from '@novelrag/contracts';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { renderer } from '../../loop/test-support/world';
import { pursueGoal } from '../../pursuit/pickup';
import { inProcessDeps } from '../../test/in-process-deps';
import { natsAnswerDeltas } from '../answer-stream';
import { defaultAgents } from '../novelrag-agent';
import { answer, input, thinkAnswer, thinkCalls } from './test-support';

jest.setTimeout(30_000);

/** The assistant on the real durability path: its state and its parallel steps are checkpointed in the goals KV. */
describe('the assistant kind (real NATS)', () => {
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

  it('checkpoints the group of parallel calls before dispatch, records both steps together and streams the answer', async () => {
    const gate = deferred();
    const weather = fakeTool({ name: 'weather', result: 'sunny', until: gate.promise });
    const air = fakeTool({ name: 'air_quality', result: 'clean', until: gate.promise });
    const catalog = new ToolCatalog([weather, air]);
    const model = new ScriptedChatModel([
      thinkCalls(['weather', 'weather in Beijing'], ['air_quality', 'air in Beijing']),
      input('weather', { city: 'Beijing' }),
      input('air_quality', { city: 'Beijing' }),
      thinkAnswer(),
      ...answer('Sunny and clean: a T-shirt will do.'),
    ]);
    const deps = await inProcessDeps({
      nc,
      store,
      threads,
      catalog,
      agents: defaultAgents({}, { assistant: { deltas: natsAnswerDeltas(nc) } }),
      model,
      renderer: renderer(),
    });
    const submission = GoalSubmission.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: uniqueName('g-asst').replace(/[^A-Za-z0-9_-]/g, '_'),
      goal: 'What should I wear in Beijing today?',
      beliefs: [],
      submittedAt: new Date().toISOString(),
      source: 'user',
      agent: 'assistant',
    });
    await store.create(newGoalRecord(submission));
    const deltas: AnswerDelta[] = [];
    const live = nc.subscribe(Subjects.goalAnswer(submission.goalId), {
      callback: (_err, msg) => {
        deltas.push(AnswerDelta.parse(msg.json()));
      },
    });
    await nc.flush();
    const done = pursueGoal(
      submission,
      { attempt: 1, seq: 1, keepAlive: () => undefined },
      deps,
      new AbortController().signal,
    );

    await Promise.all([weather.whenCalled(), air.whenCalled()]);
    const running = (await store.get(submission.goalId))!;
    expect(running.steps).toEqual([]);
    expect(
      AssistantCheckpoint.parse(running.agentState).tasks.map((t) => [t.tool, t.status, t.step]),
    ).toEqual([
      ['weather', 'running', 0],
      ['air_quality', 'running', 1],
    ]);
    gate.resolve();
    await expect(done).resolves.toBe('ack');

    const record = (await store.get(submission.goalId))!;
    expect(record).toMatchObject({
      agent: 'assistant',
      status: 'completed',
      outcome: { status: 'completed', response: 'Sunny and clean: a T-shirt will do.', steps: 2 },
    });
    expect(record.steps.map((s) => [s.index, s.plan.tool, s.outcome.result])).toEqual([
      [0, 'weather', 'sunny'],
      [1, 'air_quality', 'clean'],
    ]);
    expect(AssistantCheckpoint.parse(record.agentState)).toMatchObject({
      state: 'completed',
      answer: { content: 'Sunny and clean: a T-shirt will do.', suggestions: ['What about tomorrow?'] },
    });
    model.assertDone();

    // The answer went out piece by piece on the goal's answer subject while it was written.
    await nc.flush();
    live.unsubscribe();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.text).join('')).toBe('Sunny and clean: a T-shirt will do.');
    expect(deltas.map((d) => [d.index, d.attempt])).toEqual(deltas.map((_d, i) => [i, 1]));
  });
});
