import { connect } from '@nats-io/transport-node';
import { busRequest, discoverTools } from '@novelrag/bus';
import { ImportReply, Subjects } from '@novelrag/contracts';
import {
  demoScenario,
  type ScenarioRule,
  type SseEvent,
  type System,
  decide,
  finalize,
  followAnswering,
  installRules,
  spawnProcess,
  startSystem,
  postGoal,
} from '@novelrag/testkit';

/** (c): a naive write into a missing aspect is refined by the verdict; the aspect is created first. */
const PREREQUISITE: ScenarioRule[] = [
  finalize('c-done', ['[C]', '[success] ResourceWriteTool'], '青云峰 now exists at /location/qingyun_peak.'),
  decide('c-write', ['[C]', '[success] AspectCreateTool'], 'ResourceWriteTool', {
    operation_specification: '[C] Create 青云峰 as /location/qingyun_peak',
    content_generation_tasks: [{ description: 'what the peak looks like', content_key: 'look' }],
  }),
  decide('c-aspect', ['[C]', 'the location aspect is missing'], 'AspectCreateTool', {
    name: 'location',
    description: ['places of the world'],
  }),
  decide('c-naive', ['[C]'], 'ResourceWriteTool', {
    operation_specification: '[C] Write 青云峰 into /location straight away',
    content_generation_tasks: [{ description: 'the peak', content_key: 'look' }],
  }),
  {
    id: 'c-refine',
    when: {
      schema: 'RefinementDecision',
      contains: ['[C]', 'straight away'],
      absent: ['the location aspect is missing'],
    },
    reply: {
      json: {
        analysis: 'The decision writes into /location, but the root lists no location aspect.',
        verdict: 'refine',
        approval: null,
        refinement: {
          finished_tasks: [],
          remaining_work_summary:
            'PREREQUISITE: the location aspect is missing; create it, then write 青云峰.',
          required_context: 'the aspects at the root',
          expected_actions: 'AspectCreateTool, then ResourceWriteTool',
          boundary_conditions: [],
          exception_conditions: [],
          success_criteria: ['/location/qingyun_peak exists'],
        },
        exploration_hints: { search_terms: [], resource_paths: ['/'], tools_to_expand: ['AspectCreateTool'] },
      },
    },
  },
  {
    id: 'c-aspect-metadata',
    when: { schema: 'aspect_metadata', contains: ['places of the world'] },
    reply: {
      json: {
        description: 'Places of the world',
        children_keys: [],
        dependencies: [],
        required_fields: [{ name: 'name', type: 'string', description: 'place name' }],
        optional_fields: [],
        extensibility: { description: 'free', examples: [] },
        constraints: [],
        extra_sections: [],
      },
    },
  },
  {
    id: 'c-operations',
    when: { schema: 'resource_operations', contains: ['[C]'] },
    reply: {
      json: {
        operations: [
          {
            type: 'splice',
            uri: '/location',
            children_key: null,
            start: 0,
            end: 0,
            data_json: null,
            elements_json: JSON.stringify([{ id: 'qingyun_peak', name: '青云峰' }]),
          },
        ],
      },
    },
  },
  {
    id: 'c-summary',
    when: { contains: ['[C]', 'Summarise a write'] },
    reply: { text: 'Created 青云峰 (/location/qingyun_peak).' },
  },
];

/** (b): the answer is in the context: Finalize at once, no tool. */
const QUESTION: ScenarioRule[] = [finalize('b-answer', ['[B]'], '余归 is the protagonist of the story.')];

/** (d): a tool served by a separate third-party process (examples/third-party-tool). */
const THIRD_PARTY: ScenarioRule[] = [
  {
    id: 'd-discover',
    when: { schema: 'DiscoveryPlan', contains: ['[D]'] },
    reply: {
      json: {
        discovery_analysis: 'dice are needed',
        search_queries: [],
        query_resources: [],
        expand_tools: ['DiceRoll'],
      },
    },
  },
  finalize('d-done', ['[D]', '[success] DiceRoll'], 'The dice are rolled.'),
  decide('d-roll', ['[D]'], 'DiceRoll', { sides: 6, count: 2 }),
];

/** (e): autonomous mode's exploration decider (explore tier) and the goal it writes, pursued like any other. */
const EXPLORATION: ScenarioRule[] = [
  {
    id: 'e-context',
    when: { schema: 'ExplorationContext' },
    reply: { json: { query_resources: ['/faction'], search_queries: ['Azure Sect'] } },
  },
  {
    id: 'e-gap',
    when: { schema: 'ConceptGapAnalysis' },
    reply: { json: { priority_concern: 'enrichment', reasoning: 'the element has no history yet' } },
  },
  {
    id: 'e-goal',
    when: { schema: 'ExplorationGoal' },
    reply: { json: { goal: '[E] Give the explored element a short history' } },
  },
  finalize('e-done', ['[E]'], 'A history is not needed yet.'),
];

const kinds = (events: readonly SseEvent[]) => events.map((e) => e.event.kind);

function expectGapFree(events: readonly SseEvent[]): void {
  const seqs = events.map((e) => e.event.seq);
  expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
  const ids = events.map((e) => Number(e.id));
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
}

// Every service a real OS process on a real NATS, driven only through REST, SSE and the bus; the model is the fake
// OpenAI-compatible server answering with the offline demo's recorded scenario (plus per-goal rules marked [B]/[C]/[D]).
describe('whole-system goals (OS processes, real NATS, fake model at the HTTP boundary)', () => {
  let system: System;

  beforeAll(async () => {
    // (d)'s third-party tool process runs before the orchestrator boots, so its first discovery sees DiceRoll.
    system = await startSystem('goals', {
      beforeOrchestrator: async (natsUrl) => {
        const tool = spawnProcess('examples/third-party-tool/dist/main.js', { NATS_URL: natsUrl });
        const nc = await connect({ servers: natsUrl });
        try {
          const deadline = Date.now() + 20_000;
          while (!(await discoverTools(nc)).tools.some((t) => t.name === 'DiceRoll')) {
            if (Date.now() > deadline || tool.exitCode !== null) throw new Error('DiceRoll never appeared');
          }
        } finally {
          await nc.close();
        }
      },
    });
    installRules(system.fake, [
      ...PREREQUISITE,
      ...QUESTION,
      ...THIRD_PARTY,
      ...EXPLORATION,
      ...demoScenario().rules,
    ]);
    // (a) starts from a repository that already has the aspects it needs.
    await busRequest(
      system.nc,
      Subjects.resources.import,
      {
        schemaVersion: 1,
        mode: 'merge',
        aspects: [
          {
            aspect: {
              name: 'character',
              description: 'Characters of the story',
              childrenKeys: [],
              metadata: {},
            },
            elements: [],
          },
          {
            aspect: {
              name: 'faction',
              description: 'Factions, sects and schools',
              childrenKeys: [],
              metadata: {},
            },
            elements: [],
          },
        ],
      },
      ImportReply,
      { timeoutMs: 10_000 },
    );
  }, 180_000);

  afterEach(() => {
    // Every model request was answered by a rule (an unmatched one would have failed a phase).
    expect(system.fake.unmatched.map((r) => r.schemaName ?? r.toolNames)).toEqual([]);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('(a) the 余归 scenario: SSE to completion in order, the confirmation answered over REST, outcome = GET', async () => {
    const goalId = await postGoal(system, {
      request: 'Create a protagonist named 余归 and link her to the Azure Sect',
      lang: 'en',
    });
    // The first connection is dropped at the confirmation; the answer goes over REST; the second resumes.
    const live = await followAnswering(system, goalId, true, 90_000);
    const replay = await system.events(goalId);
    expect(live.map((e) => e.id)).toEqual(replay.map((e) => e.id)); // resumed: nothing missed, nothing repeated
    expectGapFree(replay);
    const k = kinds(replay);
    expect(k[0]).toBe('goal.accepted');
    expect(k[k.length - 1]).toBe('goal.completed');
    for (const kind of [
      'assessment',
      'discovery.plan',
      'decision',
      'analysis.verdict',
      'operation.dispatched',
    ] as const)
      expect(k).toContain(kind);
    expect(k.indexOf('interaction.requested')).toBeLessThan(k.indexOf('interaction.answered'));
    const final = replay[replay.length - 1]!.event;
    const goal = await system.http(`/v1/goals/${goalId}`);
    expect(goal.body).toMatchObject({ status: 'completed' });
    if (final.kind !== 'goal.completed') throw new Error('not completed');
    expect(goal.body['outcome']).toEqual(final.outcome);
    expect((goal.body['steps'] as { plan: { tool: string } }[]).map((s) => s.plan.tool)).toEqual([
      'ResourceWriteTool',
      'ResourceRelationWriteTool',
    ]);
    const yugui = await system.http('/v1/resources?uri=/character/yugui');
    expect(yugui.body).toMatchObject({
      element: { properties: { name: '余归' }, relationships: { '/faction/azure_sect': expect.any(Array) } },
    });
  }, 120_000);

  it('an SSE connection dropped anywhere and resumed with Last-Event-ID misses nothing and repeats nothing', async () => {
    const [goal] = (await system.http('/v1/goals?status=completed&limit=1')).body['goals'] as {
      goalId: string;
    }[];
    const full = await system.events(goal!.goalId);
    for (const cut of [1, Math.floor(full.length / 2), full.length - 1]) {
      const head = await system
        .events(goal!.goalId, { until: () => false, timeoutMs: 30_000 })
        .then((all) => all.slice(0, cut));
      const tail = await system.events(goal!.goalId, { lastEventId: head[head.length - 1]!.id });
      expect([...head, ...tail].map((e) => e.id)).toEqual(full.map((e) => e.id));
    }
  });

  it('(b) a question answered from the context without any tool', async () => {
    const goalId = await postGoal(system, { goal: '[B] What role does 余归 play in the story?' });
    const events = await system.events(goalId, { timeoutMs: 60_000 });
    expect(kinds(events)).not.toContain('operation.dispatched');
    expect(events[events.length - 1]!.event).toMatchObject({
      kind: 'goal.completed',
      outcome: { response: '余归 is the protagonist of the story.', steps: 0 },
    });
  }, 90_000);

  it('(c) a missing prerequisite (no location aspect) is discovered by the verdict and created first', async () => {
    const goalId = await postGoal(system, {
      goal: '[C] Create the mountain 青云峰 in the location aspect',
    });
    const events = await followAnswering(system, goalId, true, 90_000);
    const k = kinds(events);
    const refine = events.findIndex(
      (e) => e.event.kind === 'analysis.verdict' && e.event.verdict.verdict === 'refine',
    );
    const firstTool = events.findIndex((e) => e.event.kind === 'operation.dispatched');
    expect(refine).toBeGreaterThanOrEqual(0);
    expect(refine).toBeLessThan(firstTool);
    expect(k[k.length - 1]).toBe('goal.completed');
    const goal = await system.http(`/v1/goals/${goalId}`);
    expect((goal.body['steps'] as { plan: { tool: string } }[]).map((s) => s.plan.tool)).toEqual([
      'AspectCreateTool',
      'ResourceWriteTool',
    ]);
    expect((await system.http('/v1/resources?uri=/location/qingyun_peak')).body).toMatchObject({
      element: { properties: { name: '青云峰' } },
    });
  }, 120_000);

  it('(d) a goal uses a third-party tool served by a separate process', async () => {
    const goalId = await postGoal(system, { goal: '[D] Roll two six-sided dice' });
    const events = await system.events(goalId, { timeoutMs: 60_000 });
    const outcome = events.find((e) => e.event.kind === 'operation.outcome')?.event;
    expect(outcome).toMatchObject({ tool: 'DiceRoll', status: 'success' });
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });
  }, 90_000);

  it('(e) autonomous next: with an empty backlog the exploration decider explores an element and queues a goal', async () => {
    // Empty the backlog the earlier goals filled, so the composite can only choose exploration.
    const backlog = await system.http('/v1/backlog?limit=100');
    for (const entry of backlog.body['entries'] as { id: string }[])
      expect((await system.http(`/v1/backlog/${entry.id}`, { method: 'DELETE' })).status).toBe(200);

    const next = await system.http('/v1/goals/next', { method: 'POST', body: JSON.stringify({}) });
    expect(next.status).toBe(202);
    const chosen = next.body['goal'] as { description: string; decider: { name: string; context: string } };
    expect(chosen.description).toBe('[E] Give the explored element a short history');
    expect(chosen.decider.name).toBe('exploration');
    // The explore tier names the element it picked (by recency-weighted chance) and the gap's focus.
    expect(chosen.decider.context).toMatch(
      /^phase=explore, element=\/\w+\/\w+, aspect=\w+, focus=enrichment$/,
    );
    const goalId = String(next.body['goalId']);

    const events = await system.events(goalId, { timeoutMs: 60_000 });
    expect(events[events.length - 1]!.event).toMatchObject({
      kind: 'goal.completed',
      outcome: { response: 'A history is not needed yet.' },
    });
    const goal = await system.http(`/v1/goals/${goalId}`);
    expect(goal.body).toMatchObject({
      source: 'autonomous',
      status: 'completed',
      goal: '[E] Give the explored element a short history',
    });
    // The decider read the repository through the resource-service: its prompts carried the chosen element.
    const explored = system.fake.requests.find((r) => r.schemaName === 'ConceptGapAnalysis');
    const element = chosen.decider.context.split(', ')[1]!.slice('element='.length);
    expect(JSON.stringify(explored?.body)).toContain(element);
  }, 90_000);
});
