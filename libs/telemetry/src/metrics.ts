import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (prom-client): one registry per process, holding the Node.js process metrics and
 * the project's own. Code records into the named metrics below wherever it runs; a metric a service never touches
 * simply has no series there. Labels are bounded sets (status, agent kind, phase, purpose, model, tool, outcome):
 * never ids, never content.
 */
export const metricsRegistry = new Registry();
let defaultsOn = false;

/** Adds the Node.js process metrics (CPU, memory, event loop lag) and the service's labels; once per process. */
export function startMetrics(labels: { service: string; instance: string }): void {
  if (defaultsOn) return;
  defaultsOn = true;
  metricsRegistry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: metricsRegistry, prefix: 'novelrag_' });
}

/** The registry in the Prometheus text format, with its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const registers = [metricsRegistry];

export const Metrics = {
  goalsFinished: new Counter({
    name: 'novelrag_goals_finished_total',
    help: 'Goals that reached a terminal status, by status and agent kind.',
    labelNames: ['status', 'agent'] as const,
    registers,
  }),
  goalDuration: new Histogram({
    name: 'novelrag_goal_duration_seconds',
    help: 'Time from acceptance to the terminal status, by status and agent kind.',
    labelNames: ['status', 'agent'] as const,
    buckets: seconds,
    registers,
  }),
  goalsRunning: new Gauge({
    name: 'novelrag_goals_running',
    help: 'Goals this orchestrator is pursuing now.',
    registers,
  }),
  goalRedeliveries: new Counter({
    name: 'novelrag_goal_redeliveries_total',
    help: 'GOALS messages delivered again (a crash, a hand-back or an expired ack wait).',
    registers,
  }),
  goalsQueued: new Gauge({
    name: 'novelrag_goals_queue_depth',
    help: 'Goal submissions waiting in the GOALS stream (read when scraped).',
    registers,
  }),
  phaseDuration: new Histogram({
    name: 'novelrag_phase_duration_seconds',
    help: 'Duration of the loop phases (assessment, discovery, relevance, decision, refinement).',
    labelNames: ['phase'] as const,
    buckets: seconds,
    registers,
  }),
  llmCalls: new Counter({
    name: 'novelrag_llm_calls_total',
    help: 'Model calls by purpose, model and outcome (ok or the error code).',
    labelNames: ['purpose', 'model', 'outcome'] as const,
    registers,
  }),
  llmTokens: new Counter({
    name: 'novelrag_llm_tokens_total',
    help: 'Model tokens by purpose, model and type (input or output).',
    labelNames: ['purpose', 'model', 'type'] as const,
    registers,
  }),
  llmLatency: new Histogram({
    name: 'novelrag_llm_latency_seconds',
    help: 'Model call latency (validation retries included) by purpose and model.',
    labelNames: ['purpose', 'model'] as const,
    buckets: seconds,
    registers,
  }),
  toolInvocations: new Counter({
    name: 'novelrag_tool_invocations_total',
    help: 'Tool invocations served by this runner, by tool and outcome (ok or the error code).',
    labelNames: ['tool', 'outcome'] as const,
    registers,
  }),
  toolDuration: new Histogram({
    name: 'novelrag_tool_duration_seconds',
    help: 'Tool invocation duration on the runner, by tool.',
    labelNames: ['tool'] as const,
    buckets: seconds,
    registers,
  }),
  sseClients: new Gauge({
    name: 'novelrag_sse_clients',
    help: 'Open server-sent-event streams of the gateway.',
    registers,
  }),
  traceEventsSkipped: new Counter({
    name: 'novelrag_trace_events_skipped_total',
    help: 'Trace events the gateway read but did not serve because they did not parse (a newer producer or a contract break).',
    registers,
  }),
  httpRequests: new Counter({
    name: 'novelrag_http_requests_total',
    help: 'HTTP requests answered by the gateway, by method and status code.',
    labelNames: ['method', 'status'] as const,
    registers,
  }),
  searchLatency: new Histogram({
    name: 'novelrag_resource_search_seconds',
    help: 'Resource-service search latency.',
    buckets: seconds,
    registers,
  }),
};

/** Runs `fn` and observes its duration (in seconds) in `histogram`, whether it resolves or rejects. */
export async function timed<T>(observe: (seconds: number) => void, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    observe((performance.now() - started) / 1_000);
  }
}
