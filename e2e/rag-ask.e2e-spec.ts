import { createHash } from 'node:crypto';
import { AnswerDelta, TraceEvent } from '@novelrag/contracts';
import {
  type ScenarioRule,
  type System,
  installRules,
  readSse,
  runNovelrag,
  seedRepository,
  startSystem,
} from '@novelrag/testkit';

// A question to the `rag` agent kind through the whole system (every service an OS process, real NATS, the embedded
// store, the model faked at the HTTP boundary): retrieval by a tool-runner, the answer streamed over SSE as
// `answer.delta` events while it is written, and the goal completed with its citations verified against the documents;
// kill -9 of the orchestrator mid-answer, after which another one resumes the goal and writes the answer anew.
describe('rag: asking the repository (REST SSE and `novelrag ask`)', () => {
  let system: System;
  const LINFENG = '/character/linfeng';
  const DOC_ID = `doc_${createHash('sha256').update(LINFENG).digest('hex').slice(0, 10)}`;
  const ANSWER =
    `林风 is <cite doc_id="${DOC_ID}" quote="a swordsman of the southern hills">a swordsman of the southern hills</cite>` +
    ` and <cite doc_id="${DOC_ID}" quote="rival of the Azure Sect">a rival of the Azure Sect</cite>.`;

  /** The model of this scenario: retrieve → answer (citations quoted from 林风's document) → memory update. */
  const rules: ScenarioRule[] = [
    {
      when: { tool: 'vector_retrieve', contains: ['(none yet)'] },
      reply: { toolCall: { name: 'vector_retrieve', arguments: { query: '林风' } } },
    },
    { when: { tool: 'vector_retrieve' }, reply: { text: 'READY' } },
    {
      when: { schema: 'query_route' },
      reply: { json: { path: 'retrieve', reason: 'it names a character' } },
    },
    {
      when: { schema: 'memory_update' },
      reply: { json: { summary: 'The user asked who 林风 is.', facts: [] } },
    },
    { when: { contains: ['<output_rules>'] }, reply: { text: ANSWER } },
  ];

  /**
   * Fresh scripted model whose first route decision waits for `listening`: the answer pieces go to live subscribers
   * only, so the question is not handled before the client follows the goal.
   */
  function scriptModel(listening: Promise<unknown>): void {
    system.fake.reset();
    system.fake.once(
      { schemaName: 'query_route' },
      { after: listening, then: { json: { path: 'retrieve', reason: 'it names a character' } } },
    );
    installRules(system.fake, rules);
  }

  /** The goal completed with ANSWER as its response and both citations verified against 林风's document. */
  async function expectAnsweredWithCitations(goalId: string): Promise<void> {
    const citation = { docId: DOC_ID, uri: LINFENG, verified: true };
    const goal = await system.http(`/v1/goals/${goalId}`);
    expect(goal.body).toMatchObject({
      status: 'completed',
      outcome: {
        response: ANSWER,
        citations: [
          { ...citation, quote: 'a swordsman of the southern hills' },
          { ...citation, quote: 'rival of the Azure Sect' },
        ],
      },
    });
  }

  beforeAll(async () => {
    system = await startSystem('rag-ask');
    await seedRepository(system.nc, [
      {
        name: 'character',
        elements: [
          {
            id: 'linfeng',
            properties: {
              name: '林风',
              description: 'A swordsman of the southern hills, sworn rival of the Azure Sect.',
            },
          },
        ],
      },
    ]);
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('streams answer.delta events over SSE and completes with verified citations', async () => {
    let connected!: () => void;
    scriptModel(new Promise<void>((resolve) => (connected = resolve)));
    const submitted = await system.http('/v1/goals', {
      method: 'POST',
      body: JSON.stringify({ agent: 'rag', request: 'Who is 林风?', lang: 'en' }),
    });
    expect(submitted.status).toBe(202);
    const goalId = String(submitted.body['goalId']);
    const res = await fetch(`${system.url}/v1/goals/${goalId}/events`);
    expect(res.status).toBe(200);
    // The relay subscribes before the trace replay starts: once the first trace event arrives, pieces reach us.
    const events = await readSse(res, Infinity, (e) => {
      if (e.id !== undefined) connected();
    });
    const pieces = events
      .filter((e) => e.event === 'answer.delta')
      .map((e) => AnswerDelta.parse(JSON.parse(e.data ?? '')));
    expect(pieces.length).toBeGreaterThan(1);
    expect(events.filter((e) => e.event === 'answer.delta').every((e) => e.id === undefined)).toBe(true);
    expect(pieces.map((p) => p.index)).toEqual(pieces.map((_, i) => i));
    expect(pieces.map((p) => p.text).join('')).toBe(ANSWER);
    const trace = events
      .filter((e) => e.id !== undefined)
      .map((e) => TraceEvent.parse(JSON.parse(e.data ?? '')));
    const answered = trace.find((e) => e.kind === 'rag.answer');
    expect(answered).toMatchObject({ path: 'retrieve', answer: ANSWER, unverified: 0, limited: false });
    await expectAnsweredWithCitations(goalId);
  }, 120_000);

  it('`novelrag ask` prints the answer as it is written, then its citations', async () => {
    let accepted!: () => void;
    scriptModel(new Promise<void>((resolve) => (accepted = resolve)));
    const run = await runNovelrag(
      ['ask', 'Who is 林风?', '--lang', 'en'],
      { NOVELRAG_URL: system.url },
      {
        timeoutMs: 90_000,
        // `▶ accepted` is the first trace event: the CLI follows the goal, so the answer pieces reach it.
        onStdout: (out) => {
          if (out.includes('▶ accepted')) accepted();
        },
      },
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = run.stdout.split('\n');
    const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
    const order = [
      '▶ accepted',
      '[route] retrieve',
      'Answer:',
      ANSWER,
      '[answer] 2 citation(s), 0 unverified',
      '✔ completed',
    ];
    const found = order.map(at);
    expect(found.every((n) => n >= 0)).toBe(true);
    expect([...found].sort((a, b) => a - b)).toEqual(found);
    // The retrieval step's trace line may arrive while the answer is written (another path): it is held until after.
    expect(at('[retrieve] "林风" → 1 document(s)')).toBeGreaterThan(found[1] ?? -1);
    expect(run.stdout).toContain(`  [1] ${LINFENG} ✓ verified: "a swordsman of the southern hills"`);
    expect(run.stdout).toContain(`  [2] ${LINFENG} ✓ verified: "rival of the Azure Sect"`);
  }, 120_000);
  it('kill -9 of the orchestrator while the answer streams: another resumes the goal, which completes with verified citations', async () => {
    let connected!: () => void;
    let streaming!: () => void;
    const midAnswer = new Promise<void>((resolve) => (streaming = resolve));
    system.fake.reset();
    system.fake.once(
      { schemaName: 'query_route' },
      {
        after: new Promise<void>((resolve) => (connected = resolve)),
        then: { json: { path: 'retrieve', reason: 'it names a character' } },
      },
    );
    // The first answer stops after two pieces and never ends: the orchestrator is killed while it waits for more.
    system.fake.once(
      { where: (r) => JSON.stringify(r.body).includes('<output_rules>') },
      { chunks: ['林风 ', 'is '], end: 'hang' },
    );
    installRules(system.fake, rules);
    const submitted = await system.http('/v1/goals', {
      method: 'POST',
      body: JSON.stringify({ agent: 'rag', request: 'Who is 林风?', lang: 'en' }),
    });
    const goalId = String(submitted.body['goalId']);
    const res = await fetch(`${system.url}/v1/goals/${goalId}/events`, {
      signal: AbortSignal.timeout(170_000),
    });
    const reading = readSse(res, Infinity, (e) => {
      if (e.id !== undefined) connected();
      // Both pieces of the first answer reached us (its second has index 1).
      if (e.event === 'answer.delta' && AnswerDelta.parse(JSON.parse(e.data ?? '')).index === 1) streaming();
    });

    // The answer is being streamed to us: kill -9 the orchestrator writing it; a new one takes the goal over.
    await midAnswer;
    const orchestrator = system.processes.find((p) => p.name === 'rag-ask-orch-1');
    if (!orchestrator) throw new Error('no orchestrator rag-ask-orch-1');
    const exited = new Promise((resolve) => orchestrator.child.once('exit', resolve));
    orchestrator.child.kill('SIGKILL');
    await exited;
    await system.start('orchestrator', 'rag-ask-orch-2');

    const events = await reading;
    const pieces = events
      .filter((e) => e.event === 'answer.delta')
      .map((e) => AnswerDelta.parse(JSON.parse(e.data ?? '')));
    const attempt = (n: number) => pieces.filter((p) => p.attempt === n);
    expect(attempt(1).map((p) => p.text)).toEqual(['林风 ', 'is ']);
    // The resumed pursuit writes the answer anew, under its own attempt, from index 0.
    const again = pieces.filter((p) => p.attempt > 1);
    expect(new Set(again.map((p) => p.attempt)).size).toBe(1);
    expect(again.map((p) => p.index)).toEqual(again.map((_, i) => i));
    expect(again.map((p) => p.text).join('')).toBe(ANSWER);
    const trace = events
      .filter((e) => e.id !== undefined)
      .map((e) => TraceEvent.parse(JSON.parse(e.data ?? '')));
    expect(trace.filter((e) => e.kind === 'goal.started')).toHaveLength(2);
    // The retrieval made before the crash is not made again, nor the route asked again.
    expect(trace.filter((e) => e.kind === 'rag.retrieve')).toHaveLength(1);
    expect(system.fake.requests.filter((r) => r.schemaName === 'query_route')).toHaveLength(1);
    expect(trace.at(-1)).toMatchObject({ kind: 'goal.completed' });

    // A client that connects afterwards reads the whole answer from the final events, citations verified.
    const replay = (await system.events(goalId, { timeoutMs: 30_000 })).map((e) => e.event);
    expect(replay.find((e) => e.kind === 'rag.answer')).toMatchObject({ answer: ANSWER, unverified: 0 });
    await expectAnsweredWithCitations(goalId);
  }, 180_000);
});
