import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kvm } from '@nats-io/kv';
import { AnswerDelta, Buckets, TraceEvent } from '@novelrag/contracts';
import {
  DEMO_REQUEST,
  demoScenario,
  type System,
  expectDemoCompletedOnce,
  followAnswering,
  holdAspectAnswer,
  installRules,
  readSse,
  startSystem,
  postGoal,
} from '@novelrag/testkit';

/** An images API whose answers the test releases: each request is recorded (its prompt) and held until then. */
class HeldImagesApi {
  readonly prompts: string[] = [];
  private readonly held: { prompt: string; res: ServerResponse }[] = [];
  private released = false;
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server: Server = createServer((req, res) => void this.onRequest(req, res));

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Resolves once `count` requests are held (the tool calls are running at the provider). */
  holding(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ count, resolve });
      this.wake();
    });
  }

  release(): void {
    this.released = true;
    for (const { prompt, res } of this.held.splice(0)) this.answer(prompt, res);
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const prompt = String((JSON.parse(body) as { prompt?: unknown }).prompt);
    this.prompts.push(prompt);
    if (this.released) return this.answer(prompt, res);
    this.held.push({ prompt, res });
    this.wake();
  }

  private answer(prompt: string, res: ServerResponse): void {
    const url = `https://cdn.example/${prompt.replace(/[^a-z]+/g, '-')}.png`;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ created: 1, data: [{ url }] }));
  }

  private wake(): void {
    this.waiters = this.waiters.filter((w) => (this.held.length >= w.count ? (w.resolve(), false) : true));
  }
}

// kill -9 of a tool-runner and of the orchestrator in the middle of one goal (the offline demo's 余归 scenario on an
// empty repository): the goal still completes, and every step's write is applied exactly once.
describe('crashes during a goal (kill -9 of a tool-runner and of the orchestrator)', () => {
  let system: System;
  const images = new HeldImagesApi();

  beforeAll(async () => {
    const imagesUrl = await images.start();
    // The orchestrator gives up on the dead runner once its claim in `tool-results` is stale: the runners' lease
    // (NOVELRAG_TOOL_LEASE_MS, 2 s here) plus NOVELRAG_TOOL_CLAIM_GRACE_MS (2 s) plus at most a 1 s poll, instead of the
    // first attempt's share of the tool's declared timeout (120 s / 3 attempts), which stays the fallback.
    system = await startSystem('crash', {
      runners: 2,
      env: { NOVELRAG_IMAGE_API_BASE_URL: imagesUrl, NOVELRAG_IMAGE_TIMEOUT_MS: '90000' },
    });
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    images.close();
  });

  it('the goal completes and no write is applied twice', async () => {
    // Slow model calls inside the tools, so the kills land while a runner is working on a step.
    const inCharacterTool = holdAspectAnswer(
      system.fake,
      'the people of the story',
      'Characters of the story',
    );
    const inFactionTool = holdAspectAnswer(
      system.fake,
      'sects, schools',
      'Factions, sects and schools of the world',
    );
    installRules(system.fake, demoScenario().rules);

    const goalId = await postGoal(system, { request: DEMO_REQUEST, lang: 'en' });
    const following = followAnswering(system, goalId, true, 90_000);

    // Step 0: kill -9 the runner that claimed the invocation (its claim names it).
    await inCharacterTool;
    const kv = await new Kvm(system.nc).open(Buckets.toolResults);
    const claim = (await kv.get(`${goalId}-s0`))?.json<{ runner: string }>();
    const victim = system.processes.find((p) => p.name === claim?.runner);
    if (!victim) throw new Error(`no runner process named ${claim?.runner}`);
    victim.child.kill('SIGKILL');

    // Step 1: kill -9 the orchestrator while the surviving runner works; a new one resumes the goal.
    await inFactionTool;
    const orchestrator = system.processes.find((p) => p.name === 'crash-orch-1')!;
    const exited = new Promise((resolve) => orchestrator.child.once('exit', resolve));
    orchestrator.child.kill('SIGKILL');
    await exited;
    await system.start('orchestrator', 'crash-orch-2');

    const events = await following;
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });
    expect(events.filter((e) => e.event.kind === 'goal.started').map((e) => e.event)).toEqual([
      expect.objectContaining({ attempt: 1 }),
      expect.objectContaining({ attempt: 2 }),
    ]);
    // One application per step: the killed runner never wrote, the resumed step got the recorded result.
    await expectDemoCompletedOnce(system, goalId);
    const roots = await system.http('/v1/resources?uri=/character');
    expect(roots.body['rootIds']).toEqual(['yugui']);
    // The faction aspect's tool ran once: the resumed invocation was served from the runner's record.
    expect(
      system.fake.requests.filter(
        (r) => JSON.stringify(r.body).includes('sects, schools') && r.schemaName === 'aspect_metadata',
      ),
    ).toHaveLength(1);
    expect((await system.http('/v1/resources?uri=/character/yugui')).status).toBe(200);
  }, 110_000);

  it('an assistant goal whose two parallel calls run at the kill completes, each call applied once', async () => {
    system.fake.reset();
    installRules(system.fake, [
      { when: { schema: 'GoalTranslation' }, reply: { json: { goal: 'Draw a red fox and a blue whale' } } },
      {
        when: { schema: 'AssistantThought', absent: ['cdn.example'] },
        reply: {
          json: {
            analysis: 'two independent drawings',
            plan: ['draw the fox', 'draw the whale', 'answer'],
            action: 'create_call_tool_tasks',
            tasks: [
              { tool_name: 'image_generation', tool_instruction: 'draw a red fox' },
              { tool_name: 'image_generation', tool_instruction: 'draw a blue whale' },
            ],
            output_instruction: '',
          },
        },
      },
      {
        when: { schema: 'AssistantThought' },
        reply: {
          json: {
            analysis: 'both drawn',
            plan: ['answer'],
            action: 'output_content',
            tasks: [],
            output_instruction: 'give both image links',
          },
        },
      },
      {
        when: { tool: 'image_generation', contains: ['draw a red fox'] },
        reply: { toolCall: { name: 'image_generation', arguments: { prompt: 'a red fox' } } },
      },
      {
        when: { tool: 'image_generation', contains: ['draw a blue whale'] },
        reply: { toolCall: { name: 'image_generation', arguments: { prompt: 'a blue whale' } } },
      },
      {
        when: { schema: 'AssistantFollowUp' },
        reply: {
          json: { suggested_next_inputs: ['Draw a cat'], session_summary: 'drew two animals', facts: [] },
        },
      },
      { when: { contains: ['give both image links'] }, reply: { text: 'Here are the fox and the whale.' } },
    ]);
    const goalId = await postGoal(system, { request: 'Draw a red fox and a blue whale', agent: 'assistant' });
    // One SSE connection to the gateway for the whole goal (the gateway is not killed): trace and answer pieces.
    const res = await fetch(`${system.url}/v1/goals/${goalId}/events`, {
      signal: AbortSignal.timeout(120_000),
    });
    // The relay of answer pieces subscribes before the trace replay starts: once a trace event arrived, pieces reach us.
    let connected!: () => void;
    const relaying = new Promise<void>((resolve) => (connected = resolve));
    const reading = readSse(res, Infinity, (e) => {
      if (e.id !== undefined) connected();
    });

    // Both calls are running at the provider (held there) when the orchestrator is killed.
    await images.holding(2);
    const orchestrator = system.processes.find(
      (p) => p.name.startsWith('crash-orch-') && p.child.exitCode === null && p.child.signalCode === null,
    )!;
    const exited = new Promise((resolve) => orchestrator.child.once('exit', resolve));
    orchestrator.child.kill('SIGKILL');
    await exited;
    await system.start('orchestrator', 'crash-orch-3');
    await relaying;
    images.release();

    const raw = await reading;
    const events = raw
      .filter((e) => e.id !== undefined)
      .map((e) => TraceEvent.parse(JSON.parse(e.data ?? '')));
    expect(events[events.length - 1]).toMatchObject({ kind: 'goal.completed' });
    expect(events.filter((e) => e.kind === 'goal.started')).toEqual([
      expect.objectContaining({ attempt: 1 }),
      expect.objectContaining({ attempt: 2 }),
    ]);
    // The resumed pursuit's answer reached the client piece by piece, then whole with the suggested next inputs.
    const pieces = raw
      .filter((e) => e.event === 'answer.delta')
      .map((e) => AnswerDelta.parse(JSON.parse(e.data ?? '')));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.map((p) => [p.attempt, p.index])).toEqual(pieces.map((_p, i) => [2, i]));
    expect(pieces.map((p) => p.text).join('')).toBe('Here are the fox and the whale.');
    expect(events.find((e) => e.kind === 'assistant.output')).toMatchObject({
      content: 'Here are the fox and the whale.',
      suggestions: ['Draw a cat'],
    });
    // Each call reached the provider once: the resumed pursuit re-sent both under their invocation ids and got the
    // runner's recorded results.
    expect([...images.prompts].sort()).toEqual(['a blue whale', 'a red fox']);
    const goal = await system.http(`/v1/goals/${goalId}`);
    expect(goal.body).toMatchObject({
      status: 'completed',
      outcome: { status: 'completed', response: 'Here are the fox and the whale.', steps: 2 },
    });
    const steps = (goal.body['steps'] as { plan: { tool: string }; outcome: { result?: string } }[]).map(
      (s) => [s.plan.tool, s.outcome.result],
    );
    expect(steps).toEqual([
      ['image_generation', JSON.stringify({ images: [{ url: 'https://cdn.example/a-red-fox.png' }] })],
      ['image_generation', JSON.stringify({ images: [{ url: 'https://cdn.example/a-blue-whale.png' }] })],
    ]);
  }, 150_000);
});
