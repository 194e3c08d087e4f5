import { discoverTools } from '@novelrag/bus';
import { MicroStatsResponse, MicroSubjects } from '@novelrag/contracts';
import {
  type ExampleTool,
  type ScenarioRule,
  type SseEvent,
  type System,
  buildGoTool,
  decide,
  demoScenario,
  finalize,
  installRules,
  postGoal,
  runNovelrag,
  startExampleTool,
  startSystem,
  stopExampleTool,
} from '@novelrag/testkit';

const PY_SERVICE = 'novelrag-tools-py-example';
const SLOW = 600_000;

const discover = (marker: string, tools: string[]): ScenarioRule => ({
  id: `${marker}-discover`,
  when: { schema: 'DiscoveryPlan', contains: [marker] },
  reply: {
    json: {
      discovery_analysis: 'tools needed',
      search_queries: [],
      query_resources: [],
      expand_tools: tools,
    },
  },
});

const RULES: ScenarioRule[] = [
  // (b) both tools in one goal
  discover('[TP]', ['PyNote', 'GoWordCount']),
  finalize('tp-done', ['[TP]', '[success] GoWordCount'], 'Noted and counted.'),
  decide('tp-count', ['[TP]', '[success] PyNote'], 'GoWordCount', { text: 'one two three' }),
  decide('tp-note', ['[TP]'], 'PyNote', { text: 'hello from the orchestrator' }),
  // (c) cancel while the Python tool runs
  discover('[TC]', ['PyNote']),
  decide('tc-note', ['[TC]'], 'PyNote', { text: 'never written', holdMs: SLOW }),
  // (d) the Go tool is killed mid-call
  discover('[TL]', ['GoWordCount']),
  finalize('tl-done', ['[TL]', '] GoWordCount: '], 'The counter went away.'),
  decide('tl-count', ['[TL]'], 'GoWordCount', { text: 'lost', holdMs: SLOW }),
];

const kinds = (events: readonly SseEvent[]) => events.map((e) => e.event.kind);

// The two reference tools (examples/python-tool over a plain socket, examples/go-tool with the Go NATS client) as OS
// processes next to the whole system: checked by `novelrag tools check`, discovered and called during goals,
// cancelled, and lost.
describe('third-party tools in Python and Go (OS processes, real NATS, fake model)', () => {
  let system: System;
  let python: ExampleTool | undefined;
  let go: ExampleTool | undefined;

  beforeAll(async () => {
    buildGoTool();
    system = await startSystem('thirdparty', {
      beforeOrchestrator: async (natsUrl) => {
        python = await startExampleTool('python', { NATS_URL: natsUrl });
        go = await startExampleTool('go', { NATS_URL: natsUrl });
      },
    });
    installRules(system.fake, [...RULES, ...demoScenario().rules]);
    const found = (await discoverTools(system.nc)).tools.map((t) => t.name);
    expect(found).toEqual(expect.arrayContaining(['PyNote', 'GoWordCount']));
  }, 180_000);

  afterAll(async () => {
    await stopExampleTool(python);
    await stopExampleTool(go);
    await system?.stop();
  });

  /** Follows a goal until `kind` happens, then returns (the goal keeps going). */
  const until = (goalId: string, kind: string) =>
    system.events(goalId, { until: (e) => e.event.kind === kind, timeoutMs: 60_000 });

  it.each(['PyNote', 'GoWordCount'])(
    '(a) %s passes `novelrag tools check`',
    async (tool) => {
      const slow = JSON.stringify({ text: 's', holdMs: SLOW });
      const run = await runNovelrag(
        ['tools', 'check', tool, '--slow-params', slow],
        { NATS_URL: system.nats.url },
        {
          timeoutMs: 90_000,
        },
      );
      expect(run.stdout).not.toMatch(/^FAIL/m);
      expect(run.stdout).toContain(`${tool}: all 13 checks passed`);
      expect(run.code).toBe(0);
    },
    120_000,
  );

  it('(b) a goal discovers and calls the Python tool, then the Go tool', async () => {
    const goalId = await postGoal(system, { goal: '[TP] Note a line and count some words' });
    const events = await system.events(goalId, { timeoutMs: 60_000 });
    const outcomes = events.flatMap((e) => (e.event.kind === 'operation.outcome' ? [e.event] : []));
    expect(outcomes.map((o) => [o.tool, o.status])).toEqual([
      ['PyNote', 'success'],
      ['GoWordCount', 'success'],
    ]);
    expect(outcomes[0]?.result).toMatch(/^noted #\d+: hello from the orchestrator$/);
    expect(outcomes[1]?.result).toBe('3 words, 13 characters');
    expect(kinds(events).at(-1)).toBe('goal.completed');
  }, 90_000);

  it('(c) cancelling the goal stops the running Python call: the tool answers CANCELLED', async () => {
    const goalId = await postGoal(system, { goal: '[TC] Note something slowly' });
    await until(goalId, 'operation.dispatched');
    expect((await system.http(`/v1/goals/${goalId}/cancel`, { method: 'POST' })).status).toBe(202);
    const events = await system.events(goalId, { timeoutMs: 60_000 });
    expect(kinds(events).at(-1)).toBe('goal.cancelled');
    // The tool itself saw the cancel event: its latest error answer (its $SRV.STATS) becomes CANCELLED.
    const bound = Date.now() + 30_000;
    let lastError = '';
    while (lastError !== 'CANCELLED' && Date.now() < bound) {
      const reply = await system.nc.request(MicroSubjects.service('STATS', PY_SERVICE), '', {
        timeout: 5_000,
      });
      lastError = String(MicroStatsResponse.parse(reply.json()).endpoints[0]?.['last_error'] ?? '');
    }
    expect(lastError).toBe('CANCELLED');
  }, 90_000);

  it('(d) a lost call: the Go tool killed mid-call fails the step at once as a vanished tool, not at its timeout', async () => {
    const goalId = await postGoal(system, { goal: '[TL] Count words with a counter that dies' });
    const dispatched = await until(goalId, 'operation.dispatched');
    const sent = dispatched.at(-1)!.event;
    await stopExampleTool(go, 'SIGKILL');
    const events = await system.events(goalId, { timeoutMs: 60_000 });
    const outcome = events.find((e) => e.event.kind === 'operation.outcome')?.event;
    expect(outcome).toMatchObject({ tool: 'GoWordCount', status: 'failed' });
    const error = outcome?.kind === 'operation.outcome' ? outcome.error : undefined;
    expect(['NO_RESPONDERS', 'UNAVAILABLE']).toContain(error?.code);
    // Given up long before the deadline the tool's 30 s timeout set.
    expect(sent.kind === 'operation.dispatched' && Date.parse(outcome!.at) < sent.deadline).toBe(true);
    expect(kinds(events).at(-1)).toBe('goal.completed');
  }, 90_000);
});
