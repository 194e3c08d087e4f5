import { newGoalRecord } from '@novelrag/bus';
import 'reflect-metadata';
import { jetstream } from '@nats-io/jetstream';
import {
  type RunningService,
  BusError,
  KvThreadStore,
  busRequest,
  startService,
  submitGoal,
} from '@novelrag/bus';
import {
  BacklogAddReply,
  BacklogListReply,
  CancelRequest,
  GoalSubmission,
  NextGoalReply,
  FindReply,
  InteractionAnswerAck,
  SCHEMA_VERSION,
  Subjects,
  ThreadRecord,
  Buckets,
} from '@novelrag/contracts';
import { Kvm } from '@nats-io/kv';
import { uniqueName } from '@novelrag/testkit';
import {
  NunjucksPromptRenderer,
  createChatModelFromEnv,
  findTemplatesRoot,
  parseLlmEnv,
} from '@novelrag/llm';
import { NextGoalService } from '../deciders/next-goal.service';
import type { OrchestratorEnv } from '../config';
import { NatsResourceService } from '@novelrag/resource-client';
import { orchestratorDefinition } from '../service.definition';
import { type Harness, buildForProcesses, call, decide, finalize, startHarness } from '../test/harness';

jest.setTimeout(30_000);

describe('orchestrator runtime over real NATS, resource-service, fake OpenAI and a bus tool', () => {
  let h: Harness;
  let orchestrator: RunningService<OrchestratorEnv>;

  beforeAll(async () => {
    buildForProcesses();
    h = await startHarness('orch');
    orchestrator = await startService(
      orchestratorDefinition,
      h.orchestratorEnv({ NOVELRAG_INSTANCE_ID: uniqueName('orch') }),
    );
  }, 90_000);

  afterAll(async () => {
    await orchestrator?.close();
    await h?.stop();
  });

  const find = (uri: string) =>
    busRequest(h.nc, Subjects.resources.find, { uri }, FindReply, { timeoutMs: 5_000 });

  it('pursues a goal to completion: the repository shows its effect and the trace tells the story', async () => {
    decide(h.fake, '[T1]', [call('create_character', { name: '余归' }), finalize('余归 exists now')]);
    const goalId = await h.submit({ goal: '[T1] create the character 余归' });
    const done = await h.waitForGoal(goalId);

    expect(done).toMatchObject({
      status: 'completed',
      outcome: { status: 'completed', response: '余归 exists now', resolutionStatus: 'success', steps: 1 },
      steps: [{ index: 0, plan: { tool: 'create_character', params: { name: '余归' } } }],
    });
    expect(done.steps[0]!.outcome).toMatchObject({ status: 'success', result: 'created /character/余归' });
    expect(done.inFlight).toBeUndefined();
    expect(done.usage.totalTokens).toBeGreaterThan(0);
    await expect(find('/character/余归')).resolves.toMatchObject({ kind: 'element' });

    const invocation = h.tools.received.find((i) => i.goalId === goalId)!;
    expect(invocation).toMatchObject({ step: 0, beliefs: [], workspace: { segments: expect.any(Array) } });

    await h.trace.waitFor(goalId, 'goal.completed');
    const events = h.trace.of(goalId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    const kinds = h.trace.kinds(goalId);
    for (const kind of [
      'goal.accepted',
      'goal.status_changed',
      'goal.started',
      'llm.call',
      'assessment',
      'discovery.plan',
      'context.updated',
      'decision',
      'analysis.verdict',
      'operation.dispatched',
      'operation.outcome',
      'resolution',
      'goal.completed',
    ] as const)
      expect(kinds).toContain(kind);
    expect(kinds.indexOf('goal.accepted')).toBe(0);
    expect(kinds[kinds.length - 1]).toBe('goal.completed');
  });

  it('rejects malformed submissions without crashing, logs each with its code, and goes on with the next goal', async () => {
    // The rejections are logged as errors on stderr: captured here (and kept out of the test output) to be checked.
    const rejections: Record<string, unknown>[] = [];
    const write = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
    const capture = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      const text = String(chunk);
      if (!text.includes('goal submission rejected')) return write(chunk, ...rest);
      rejections.push(JSON.parse(text) as Record<string, unknown>);
      return true;
    };
    const spy = jest
      .spyOn(process.stderr, 'write')
      .mockImplementation(capture as typeof process.stderr.write);
    try {
      const js = jetstream(h.nc);
      await js.publish(Subjects.goalSubmitted, 'not json at all');
      await js.publish(
        Subjects.goalSubmitted,
        JSON.stringify({ schemaVersion: SCHEMA_VERSION, goalId: 'bad goal' }),
      );
      decide(h.fake, '[T2]', [finalize('still alive')]);
      const goalId = await h.submit({ goal: '[T2] say hello' });
      await expect(h.waitForGoal(goalId)).resolves.toMatchObject({ status: 'completed' });
    } finally {
      spy.mockRestore();
    }
    expect(rejections).toHaveLength(2);
    expect(rejections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'error', code: 'VALIDATION_FAILED', issues: 'not JSON' }),
        expect.objectContaining({
          level: 'error',
          code: 'VALIDATION_FAILED',
          issues: expect.stringContaining('goalId'),
        }),
      ]),
    );
    const health = await h.nc.request(Subjects.health('orchestrator'), '{}', { timeout: 2_000 });
    expect(health.json()).toMatchObject({ ok: true, data: { ok: true } });
  });

  it('cancel stops a running goal at once and abandons its in-flight tool call', async () => {
    decide(h.fake, '[T3]', [call('slow')]);
    const invoked = h.tools.nextInvocation('slow');
    const goalId = await h.submit({ goal: '[T3] run the slow tool' });
    await invoked;
    const started = Date.now();
    await h.store.mutate(goalId, (g) => ({ ...g, cancelRequested: true }));
    h.nc.publish(
      Subjects.goalCancel(goalId),
      JSON.stringify(
        CancelRequest.parse({
          schemaVersion: SCHEMA_VERSION,
          goalId,
          requestedBy: 'tester',
          at: new Date().toISOString(),
        }),
      ),
    );
    const done = await h.waitForGoal(goalId);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(done).toMatchObject({ status: 'cancelled', outcome: { status: 'cancelled' } });
    expect(done.steps).toEqual([
      expect.objectContaining({ outcome: expect.objectContaining({ status: 'cancelled' }) }),
    ]);
    const cancelled = await h.trace.waitFor(goalId, 'goal.cancelled');
    expect(cancelled).toMatchObject({ requestedBy: 'tester' });
    expect(h.trace.of(goalId).find((e) => e.kind === 'operation.outcome')).toMatchObject({
      status: 'cancelled',
    });
  });

  it('a tool question waits for the human; the answer resumes the goal', async () => {
    decide(h.fake, '[T4]', [call('ask', { question: 'Overwrite 余归?' }), finalize('asked and done')]);
    const goalId = await h.submit({ goal: '[T4] ask before writing' });
    const requested = await h.trace.waitFor(goalId, 'interaction.requested');
    if (requested.kind !== 'interaction.requested') throw new Error('unreachable');
    const iid = requested.interaction.interactionId;
    const waiting = await h.waitForGoal(goalId, (r) => r.status === 'waiting_for_input');
    expect(waiting.pendingInteraction).toMatchObject({ interactionId: iid, kind: 'confirm', tool: 'ask' });

    const answer = (interactionId: string, forGoal = goalId) =>
      busRequest(
        h.nc,
        Subjects.interactionAnswer(forGoal, interactionId),
        { schemaVersion: SCHEMA_VERSION, goalId: forGoal, interactionId, approved: true, answeredBy: 'me' },
        InteractionAnswerAck,
        { timeoutMs: 5_000 },
      );
    await expect(answer('i-wrong')).rejects.toMatchObject({ code: 'INTERACTION_NOT_PENDING' });
    await expect(answer(iid)).resolves.toEqual({ accepted: true });
    await expect(answer(iid)).rejects.toBeInstanceOf(BusError);
    await expect(answer('i-x', 'g-does-not-exist')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const done = await h.waitForGoal(goalId);
    expect(done.status).toBe('completed');
    expect(done.pendingInteraction).toBeUndefined();
    expect(done.steps[0]!.outcome.result).toBe('{"approved":true}');
    expect(h.trace.kinds(goalId)).toEqual(
      expect.arrayContaining(['interaction.requested', 'interaction.answered']),
    );
    // The tool's runtime events: traced, and the backlog item stored by the resource-service.
    const runtime = h.trace.of(goalId).filter((e) => e.kind === 'runtime');
    expect(runtime.map((e) => (e.kind === 'runtime' ? e.event.kind : null))).toEqual(['progress', 'backlog']);
    const backlog = await busRequest(h.nc, Subjects.resources.backlogList, {}, BacklogListReply, {
      timeoutMs: 5_000,
    });
    expect(backlog.entries).toEqual([
      expect.objectContaining({ content: { description: 'follow up: Overwrite 余归?' }, priority: 3 }),
    ]);
  });

  it('an unanswered question times out to a decline and the goal goes on', async () => {
    decide(h.fake, '[T9]', [
      call('ask', { question: 'Delete everything?', timeoutMs: 1_000 }),
      finalize('not deleted'),
    ]);
    const goalId = await h.submit({ goal: '[T9] ask and wait' });
    const done = await h.waitForGoal(goalId);
    expect(done).toMatchObject({ status: 'completed', outcome: { response: 'not deleted' } });
    expect(done.steps[0]!.outcome.result).toBe('{"timedOut":true}');
    await h.trace.waitFor(goalId, 'goal.completed');
    const kinds = h.trace.kinds(goalId);
    expect(kinds).toEqual(expect.arrayContaining(['interaction.requested', 'interaction.timed_out']));
    const statuses = h.trace
      .of(goalId)
      .flatMap((e) => (e.kind === 'goal.status_changed' ? [`${e.from}>${e.to}`] : []));
    expect(statuses).toEqual([
      'queued>running',
      'running>waiting_for_input',
      'waiting_for_input>running',
      'running>completed',
    ]);
  });

  it('translates a request into a goal once, then pursues it', async () => {
    decide(h.fake, '[T8]', [call('create_character', { name: 'Epsilon' }), finalize('Epsilon created')]);
    const goalId = await h.submit({ request: '[T8] please make a character called Epsilon' });
    const done = await h.waitForGoal(goalId);
    expect(done).toMatchObject({ status: 'completed', goal: 'Goal [T8]: do as asked' });
    expect(h.trace.of(goalId).find((e) => e.kind === 'llm.call')).toMatchObject({
      purpose: 'goal_translation',
    });
    expect(h.fake.requests.filter((r) => r.schemaName === 'GoalTranslation')).toHaveLength(1);
  });

  it('acks a goal cancelled while queued without running it, and traces its end', async () => {
    const now = new Date().toISOString();
    const submission = GoalSubmission.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: uniqueName('g-queued'),
      goal: '[T10] never run',
      beliefs: [],
      submittedAt: now,
      source: 'user',
    });
    await h.store.create({
      ...newGoalRecord(submission),
      status: 'cancelled',
      cancelRequested: true,
      outcome: {
        status: 'cancelled',
        response: '',
        reason: 'cancelled before the pursuit started',
        steps: 0,
        tokens: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        finishedAt: now,
      },
    });
    await submitGoal(h.nc, submission);
    await expect(h.trace.waitFor(submission.goalId, 'goal.cancelled')).resolves.toMatchObject({ seq: 0 });
    expect(h.trace.kinds(submission.goalId)).toEqual(['goal.cancelled']);
    expect(h.fake.requests.some((r) => JSON.stringify(r.body).includes('[T10]'))).toBe(false);
  });

  it('gives up a goal whose pursuits keep dying (poison) instead of resuming it forever', async () => {
    const submission = GoalSubmission.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: uniqueName('g-poison'),
      goal: '[T11] kills its orchestrator',
      beliefs: [],
      submittedAt: new Date().toISOString(),
      source: 'user',
    });
    await h.store.create({ ...newGoalRecord(submission), status: 'running', attempts: 5 });
    await submitGoal(h.nc, submission);
    const done = await h.waitForGoal(submission.goalId);
    expect(done).toMatchObject({ status: 'failed', outcome: { error: { code: 'INTERNAL' } } });
    expect(done.outcome!.reason).toContain('gave up after 5 pursuits');
  });

  it('runs the goals of one thread one after another, sharing workspace and history', async () => {
    const threadId = uniqueName('thread');
    decide(h.fake, '[T5a]', [call('create_character', { name: 'First' }), finalize('first done')]);
    decide(h.fake, '[T5b]', [call('create_character', { name: 'Second' }), finalize('second done')]);
    const a = await h.submit({ goal: '[T5a] create First', threadId });
    const b = await h.submit({ goal: '[T5b] create Second', threadId });
    await h.waitForGoal(b);
    await h.trace.waitFor(b, 'goal.completed'); // published after the thread was updated
    await expect(h.store.get(a)).resolves.toMatchObject({ status: 'completed' });

    const aDone = h.trace.of(a).find((e) => e.kind === 'goal.completed')!;
    const bStarted = h.trace.of(b).find((e) => e.kind === 'goal.started')!;
    expect(Date.parse(bStarted.at)).toBeGreaterThanOrEqual(Date.parse(aDone.at));

    const kv = await new Kvm(h.nc).open(Buckets.threads);
    const thread = ThreadRecord.parse((await kv.get(threadId))!.json());
    expect(thread.history.map((x) => x.goalId)).toEqual([a, b]);
    expect(thread.workspace.expandedTools).toEqual(expect.arrayContaining(['create_character']));
    // The second goal's prompts show what the first one did.
    const bPrompts = h.fake.requests.filter((r) => JSON.stringify(r.body).includes('[T5b]'));
    expect(bPrompts.some((r) => JSON.stringify(r.body).includes('first done'))).toBe(true);
  });

  it('ends with the best partial answer and the limit it hit when a budget runs out', async () => {
    decide(h.fake, '[T6]', [call('create_character', { name: 'Budget' })]);
    const tokens = await h.submit({ goal: '[T6] spend tokens', limits: { tokenBudget: 10 } });
    const byTokens = await h.waitForGoal(tokens);
    expect(byTokens).toMatchObject({
      status: 'abandoned',
      outcome: { status: 'abandoned', limitHit: 'token_budget' },
    });
    expect(byTokens.outcome!.response).toContain('Token budget exhausted');
    await h.trace.waitFor(tokens, 'goal.abandoned'); // the final event is named after the status
    expect(h.trace.kinds(tokens)).not.toContain('goal.failed');
    await expect(h.trace.waitFor(tokens, 'limit.hit')).resolves.toMatchObject({
      limit: 'token_budget',
      max: 10,
    });

    decide(h.fake, '[T7]', [
      call('create_character', { name: 'Steps1' }),
      call('create_character', { name: 'Steps2' }),
    ]);
    const steps = await h.submit({ goal: '[T7] too many steps', limits: { maxSteps: 1 } });
    const bySteps = await h.waitForGoal(steps);
    expect(bySteps).toMatchObject({ status: 'abandoned', outcome: { limitHit: 'max_steps', steps: 1 } });
    expect(bySteps.outcome!.response).toContain('create_character');
    await expect(find('/character/Steps1')).resolves.toMatchObject({ kind: 'element' });
    await expect(find('/character/Steps2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a Finalize with incomplete ends the goal abandoned, and its trace ends goal.abandoned', async () => {
    decide(h.fake, '[T12]', [
      {
        name: 'Finalize',
        arguments: { status: 'incomplete', response: 'partly done', evidence: [], gaps: [] },
      },
    ]);
    const goalId = await h.submit({ goal: '[T12] do what you can' });
    const done = await h.waitForGoal(goalId);
    expect(done).toMatchObject({
      status: 'abandoned',
      outcome: { status: 'abandoned', response: 'partly done' },
    });
    await expect(h.trace.waitFor(goalId, 'goal.abandoned')).resolves.toMatchObject({
      outcome: { status: 'abandoned' },
    });
    expect(h.trace.kinds(goalId)).not.toContain('goal.failed');
  });

  it('autonomous mode: the backlog decider turns an entry into a goal that is queued and pursued', async () => {
    await busRequest(
      h.nc,
      Subjects.resources.backlogAdd,
      { content: { description: 'a character named Delta is missing' }, priority: 9 },
      BacklogAddReply,
      { timeoutMs: 5_000 },
    );
    h.fake.once(
      { schemaName: 'BacklogGoal' },
      { json: { goal: '[N1] create the character Delta', selected_entries: [1] } },
    );
    decide(h.fake, '[N1]', [call('create_character', { name: 'Delta' }), finalize('Delta created')]);
    const service = new NextGoalService({
      nc: h.nc,
      store: h.store,
      threads: await KvThreadStore.open(h.nc),
      model: createChatModelFromEnv(parseLlmEnv(h.orchestratorEnv())),
      renderer: new NunjucksPromptRenderer({ root: findTemplatesRoot() }),
      resources: new NatsResourceService(h.nc),
      defaultLang: 'en',
      timeoutMs: 10_000,
      random: () => 0, // the backlog is the composite's first candidate
    });
    const reply = await service.next({ schemaVersion: SCHEMA_VERSION, submit: true });
    expect(reply.goal).toMatchObject({
      description: '[N1] create the character Delta',
      decider: { name: 'backlog' },
      status: 'queued',
    });
    const done = await h.waitForGoal(reply.goal!.goalId!);
    expect(done).toMatchObject({
      status: 'completed',
      source: 'autonomous',
      goal: '[N1] create the character Delta',
    });
    await expect(find('/character/Delta')).resolves.toMatchObject({ kind: 'element' });
    const backlog = await busRequest(h.nc, Subjects.resources.backlogList, {}, BacklogListReply, {
      timeoutMs: 5_000,
    });
    expect(backlog.entries.map((e) => e.content)).not.toContainEqual({
      description: 'a character named Delta is missing',
    });

    // The running orchestrator serves the subject (any instance), validating what it is sent.
    await expect(
      busRequest(h.nc, Subjects.autonomousNext, { submit: 'yes' }, NextGoalReply, { timeoutMs: 5_000 }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('never had to redeliver a goal (malformed ones were terminated, running ones kept alive)', async () => {
    // Runs last: the suite took several ack waits (3 s), so a message that was not terminated would be redelivered.
    const info = await (await jetstream(h.nc).consumers.get('GOALS', 'orchestrator')).info();
    expect(info.num_redelivered).toBe(0);
  });
});
