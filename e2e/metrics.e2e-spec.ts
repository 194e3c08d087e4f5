import {
  DEMO_REQUEST,
  type MetricFamily,
  type ServiceProcess,
  type System,
  demoScenario,
  followAnswering,
  installRules,
  metricValue,
  postGoal,
  scrapeMetrics,
  startSystem,
} from '@novelrag/testkit';

/** The URL a service logged for its metrics port (it logs it before it answers health; waits for the line if not yet read). */
function metricsUrlOf(p: ServiceProcess, timeoutMs = 15_000): Promise<string> {
  const find = () => /"msg":"metrics served"[^\n]*"url":"([^"]+)"/.exec(p.output())?.[1];
  const now = find();
  if (now) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const onData = () => {
      const url = find();
      if (!url) return;
      cleanup();
      resolve(url);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${p.name} logged no metrics URL within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      p.child.stdout?.off('data', onData);
    };
    p.child.stdout?.on('data', onData);
  });
}

// The four services' Prometheus endpoints after one goal, read with a Prometheus text-format parser: the gateway's
// /metrics on its HTTP port, the others' on their NOVELRAG_METRICS_PORT.
describe('Prometheus metrics of the four services', () => {
  let system: System;
  const scrapes = new Map<string, Map<string, MetricFamily>>();

  beforeAll(async () => {
    system = await startSystem('metrics', {
      env: { NOVELRAG_METRICS_PORT: '0', NOVELRAG_METRICS_HOST: '127.0.0.1' },
    });
    installRules(system.fake, demoScenario().rules);
    const goalId = await postGoal(system, { request: DEMO_REQUEST, lang: 'en' });
    const events = await followAnswering(system, goalId, true, 90_000);
    expect(events[events.length - 1]!.event).toMatchObject({ kind: 'goal.completed' });
    scrapes.set('gateway', await scrapeMetrics(`${system.url}/metrics`));
    for (const [service, name] of [
      ['orchestrator', 'metrics-orch-1'],
      ['tool-runner', 'metrics-runner-1'],
      ['resource-service', 'metrics-rs'],
    ] as const) {
      const p = system.processes.find((x) => x.name === name)!;
      scrapes.set(service, await scrapeMetrics(await metricsUrlOf(p)));
    }
  }, 240_000);

  afterAll(async () => {
    await system?.stop();
  });

  const of = (service: string) => scrapes.get(service)!;

  it('the gateway: HTTP requests by status (with a request id echoed), SSE clients, GOALS queue depth', async () => {
    const gw = of('gateway');
    expect(
      metricValue(gw, 'novelrag_http_requests_total', { method: 'POST', status: '202' }),
    ).toBeGreaterThanOrEqual(1);
    expect(gw.get('novelrag_sse_clients')?.type).toBe('GAUGE');
    expect(metricValue(gw, 'novelrag_sse_clients')).toBe(0); // the goal's stream has ended
    expect(gw.get('novelrag_goals_queue_depth')?.samples[0]?.value).toBe(0);
    expect(gw.get('novelrag_process_cpu_seconds_total')).toBeDefined();
    const res = await fetch(`${system.url}/health/live`, { headers: { 'X-Request-Id': 'probe-42' } });
    expect(res.headers.get('x-request-id')).toBe('probe-42');
    const fresh = await fetch(`${system.url}/health/live`);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the orchestrator: goals by status and agent kind, goal and phase durations, LLM calls and tokens', () => {
    const orch = of('orchestrator');
    expect(
      metricValue(orch, 'novelrag_goals_finished_total', { status: 'completed', agent: 'novelrag' }),
    ).toBe(1);
    expect(orch.get('novelrag_goal_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(metricValue(orch, 'novelrag_goal_duration_seconds_count', { status: 'completed' })).toBe(1);
    for (const phase of ['assessment', 'discovery', 'decision', 'refinement']) {
      expect(metricValue(orch, 'novelrag_phase_duration_seconds_count', { phase })).toBeGreaterThanOrEqual(1);
    }
    expect(
      metricValue(orch, 'novelrag_llm_calls_total', { model: 'fake-model', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    expect(metricValue(orch, 'novelrag_llm_tokens_total', { type: 'input' })).toBeGreaterThan(0);
    expect(metricValue(orch, 'novelrag_llm_latency_seconds_count')).toBeGreaterThan(0);
    expect(metricValue(orch, 'novelrag_goals_running')).toBe(0);
  });

  it('the tool-runner: invocations by tool and outcome with latency, and its own model calls', () => {
    const runner = of('tool-runner');
    expect(
      metricValue(runner, 'novelrag_tool_invocations_total', { tool: 'AspectCreateTool', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(metricValue(runner, 'novelrag_tool_duration_seconds_count', { tool: 'ResourceWriteTool' })).toBe(
      1,
    );
    expect(
      metricValue(runner, 'novelrag_llm_calls_total', { purpose: 'aspect_metadata' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('the resource-service: search latency', () => {
    expect(metricValue(of('resource-service'), 'novelrag_resource_search_seconds_count')).toBeGreaterThan(0);
  });
});
