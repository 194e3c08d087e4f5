import {
  DEMO_REQUEST,
  OtlpReceiver,
  type ReceivedSpan,
  type System,
  demoScenario,
  followAnswering,
  holdAspectAnswer,
  installRules,
  postGoal,
  startSystem,
} from '@novelrag/testkit';

// The four services as processes exporting OTLP/HTTP to an in-process receiver: one goal is one trace across all of
// them, with the parent links of goal → step → phase → LLM call and tool call → runner → its LLM calls and resource
// requests; a goal resumed by another orchestrator after kill -9 stays in its trace.
const SERVICES = ['gateway', 'orchestrator', 'tool-runner', 'resource-service'];
const SERVER = 2;
const CLIENT = 3;

interface TracedSystem {
  readonly system: System;
  readonly receiver: OtlpReceiver;
}

/** A system whose services export their spans to an in-process receiver (started before, stopped after the suite). */
function tracedSystem(label: string): TracedSystem {
  const fixture: { system?: System; receiver?: OtlpReceiver } = {};
  beforeAll(async () => {
    fixture.receiver = await OtlpReceiver.start();
    fixture.system = await startSystem(label, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: fixture.receiver.endpoint },
    });
  }, 180_000);
  afterAll(async () => {
    await fixture.system?.stop();
    await fixture.receiver?.close();
  });
  return {
    get system() {
      return fixture.system!;
    },
    get receiver() {
      return fixture.receiver!;
    },
  };
}

/**
 * The goal's trace once `test` holds for its spans (the exporters batch, so spans arrive over a few seconds), and with
 * `wholeTree` once every span's parent has arrived too (a parent ends after its children: often in a later batch).
 */
async function traceOf(
  receiver: OtlpReceiver,
  goalId: string,
  what: string,
  test: (spans: ReceivedSpan[]) => boolean,
  wholeTree = false,
): Promise<{ submit: ReceivedSpan; spans: ReceivedSpan[] }> {
  const submitOf = (spans: readonly ReceivedSpan[]) =>
    spans.find((s) => s.name === 'submit goal' && s.attributes['novelrag.goal.id'] === goalId);
  await receiver.waitFor(what, (spans) => {
    const submit = submitOf(spans);
    if (submit === undefined) return false;
    const trace = spans.filter((s) => s.traceId === submit.traceId);
    const ids = new Set(trace.map((s) => s.spanId));
    return test(trace) && (!wholeTree || trace.every((s) => s === submit || ids.has(s.parentSpanId)));
  });
  const submit = submitOf(receiver.spans)!;
  return { submit, spans: receiver.spans.filter((s) => s.traceId === submit.traceId) };
}

describe('OpenTelemetry: one goal is one trace across the four services', () => {
  const traced = tracedSystem('otel');

  it('one goal is one trace: every service, parent links, GenAI attributes, runner LLM calls under their tool call', async () => {
    const { system, receiver } = traced;
    installRules(system.fake, demoScenario().rules);
    const goalId = await postGoal(system, { request: DEMO_REQUEST, lang: 'en' });
    const events = await followAnswering(system, goalId, true, 90_000);
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });

    const { submit, spans } = await traceOf(
      receiver,
      goalId,
      'the goal trace from all four services',
      (t) =>
        SERVICES.every((service) => t.some((s) => s.service === service)) &&
        t.some((s) => s.name === 'pursue goal') &&
        t.some((s) => s.service === 'tool-runner' && s.name.startsWith('chat ')),
      true,
    );
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);
    const ancestors = (s: ReceivedSpan) => {
      const out: ReceivedSpan[] = [];
      for (let p = parentOf(s); p; p = parentOf(p)) out.push(p);
      return out;
    };

    expect(submit.service).toBe('gateway');
    expect(submit.parentSpanId).toBe('');
    // Every other span of the trace hangs off a span of the same trace.
    for (const s of spans.filter((x) => x !== submit)) expect(parentOf(s)).toBeDefined();

    const pursue = spans.find((s) => s.name === 'pursue goal')!;
    expect(pursue).toMatchObject({ service: 'orchestrator', parentSpanId: submit.spanId });
    const steps = spans.filter((s) => s.name === 'step');
    expect(steps.length).toBeGreaterThanOrEqual(2);
    for (const step of steps) expect(step.parentSpanId).toBe(pursue.spanId);
    const phases = spans.filter((s) => s.name.startsWith('phase '));
    expect(phases.map((p) => p.name)).toEqual(
      expect.arrayContaining(['phase assessment', 'phase discovery', 'phase decision', 'phase refinement']),
    );
    for (const phase of phases) expect(parentOf(phase)?.name).toBe('step');

    // LLM calls: GenAI attributes everywhere; the orchestrator's under a phase, the runner's under its tool call.
    const llm = spans.filter((s) => s.name.startsWith('chat '));
    expect(llm.length).toBeGreaterThan(0);
    for (const call of llm) {
      expect(call.kind).toBe(CLIENT);
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
        'novelrag.llm.purpose': expect.any(String),
      });
      expect(call.attributes['gen_ai.input.messages']).toBeUndefined(); // content only when enabled
    }
    // The request's translation comes before the first step; every other orchestrator call belongs to a phase.
    for (const call of llm.filter((s) => s.service === 'orchestrator')) {
      if (call.attributes['novelrag.llm.purpose'] === 'translate') expect(parentOf(call)).toBe(pursue);
      else expect(parentOf(call)?.name).toMatch(/^phase /);
    }
    const runnerCalls = llm.filter((s) => s.service === 'tool-runner');
    expect(runnerCalls.length).toBeGreaterThan(0);
    for (const call of runnerCalls) {
      const tool = ancestors(call).find(
        (a) => a.service === 'tool-runner' && a.name.startsWith('execute_tool '),
      );
      expect(tool).toBeDefined();
      expect(tool!.kind).toBe(SERVER);
      // The runner's tool span continues the orchestrator's call of that tool, inside a step.
      const caller = parentOf(tool!)!;
      expect(caller).toMatchObject({ service: 'orchestrator', name: tool!.name, kind: CLIENT });
      expect(ancestors(caller).some((a) => a.name === 'step')).toBe(true);
    }

    // Resource-service requests continue their sender's span (the runner's writes included).
    const served = spans.filter((s) => s.service === 'resource-service' && s.name.startsWith('process '));
    expect(served.length).toBeGreaterThan(0);
    for (const s of served) {
      expect(s.kind).toBe(SERVER);
      expect(parentOf(s)?.name).toBe(`send ${String(s.attributes['messaging.destination.name'])}`);
    }
    expect(
      served.some((s) =>
        ancestors(s).some((a) => a.service === 'tool-runner' && a.name.startsWith('execute_tool ')),
      ),
    ).toBe(true);

    // The project's trace events name the same trace.
    const written = events.map((e) => e.event as { traceId?: string; kind: string });
    expect(written.filter((e) => e.kind === 'llm.call').every((e) => e.traceId === submit.traceId)).toBe(
      true,
    );
    expect(receiver.rejected).toEqual([]);
  }, 150_000);
});

describe('OpenTelemetry: a resumed goal keeps its trace', () => {
  const traced = tracedSystem('otelcrash');

  it('a goal resumed by another orchestrator after kill -9 stays in the same trace', async () => {
    const { system, receiver } = traced;
    const held = holdAspectAnswer(system.fake, 'the people of the story', 'Characters of the story');
    installRules(system.fake, demoScenario().rules);
    const goalId = await postGoal(system, { request: DEMO_REQUEST, lang: 'en' });
    const following = followAnswering(system, goalId, true, 90_000);

    await held; // the first orchestrator is inside step 0's tool call
    const orchestrator = system.processes.find((p) => p.name === 'otelcrash-orch-1')!;
    const exited = new Promise((resolve) => orchestrator.child.once('exit', resolve));
    orchestrator.child.kill('SIGKILL');
    await exited;
    await system.start('orchestrator', 'otelcrash-orch-2');
    const events = await following;
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });

    const { submit, spans } = await traceOf(receiver, goalId, 'the resumed pursuit in the goal trace', (t) =>
      t.some((s) => s.name === 'pursue goal' && s.attributes['novelrag.attempt'] === 2),
    );
    const resumed = spans.find((s) => s.name === 'pursue goal' && s.attributes['novelrag.attempt'] === 2)!;
    expect(resumed.parentSpanId).toBe(submit.spanId);
    // The runner's work for the killed pursuit (its tool call went on) is in the same trace too.
    expect(
      spans.filter((s) => s.service === 'tool-runner' && s.name.startsWith('execute_tool ')).length,
    ).toBeGreaterThan(0);
    const starts = events
      .filter((e) => e.event.kind === 'goal.started')
      .map((e) => e.event as { traceId?: string });
    expect(starts).toHaveLength(2);
    for (const start of starts) expect(start.traceId).toBe(submit.traceId);
  }, 150_000);
});
