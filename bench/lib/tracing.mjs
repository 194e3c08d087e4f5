// Tracing in the benchmarks (issue 15): an OTLP/HTTP receiver stub (in a process of its own) that the services (and this
// process) export their spans to, tracing switched on in this process for the "on" rows, and the cost of the tracing calls
// when tracing is off (no SDK installed: the OpenTelemetry API is a no-op), measured directly.
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * Starts the OTLP/HTTP receiver stub (bench/lib/otlp-stub.mjs) in a child process, so that receiving and parsing the
 * exported spans is not work of the process that measures. `count()`: the spans and exports received so far (asked
 * over IPC, bounded); `close()` stops it.
 */
export async function startOtlpStub() {
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'otlp-stub.mjs'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const reply = (match, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        reject(new Error(`the OTLP stub did not answer (${what}) within 10 s`));
      }, 10_000);
      const onMessage = (m) => {
        if (!match(m)) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
    });
  const { port } = await reply((m) => typeof m?.port === 'number', 'port');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    count: () => {
      const answer = reply((m) => m?.type === 'count', 'count');
      child.send({ type: 'count' });
      return answer.then(({ spans, exports }) => ({ spans, exports }));
    },
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/** Installs the OTel SDK in this process as a service does with OTEL_EXPORTER_OTLP_ENDPOINT set; returns its handle. */
export function startBenchTracing(root, endpoint) {
  const { startTracing, TelemetryEnv } = require(path.join(root, 'libs/telemetry/dist/index.js'));
  // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT from process.env itself: the traces URL is given explicitly here.
  const env = TelemetryEnv.parse({
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces`,
    OTEL_TRACES_SAMPLER: 'always_on',
  });
  return startTracing({ service: 'bench', instanceId: `bench-${process.pid}`, version: 'bench' }, env);
}

/**
 * What the tracing calls of one tool dispatch cost while tracing is off (no SDK): a client span around the call
 * (`inSpan`), the trace headers of the request (`withTraceHeaders`) and the ids a trace event would carry
 * (`activeTraceIds`), `n` times; nanoseconds per call, beside the same loop without them.
 */
export async function tracingOffCost(root, n = 200_000) {
  const { inSpan, activeTraceIds, SpanKind } = require(path.join(root, 'libs/telemetry/dist/index.js'));
  const { withTraceHeaders } = require(path.join(root, 'libs/bus/dist/index.js'));
  const work = async () => 1;
  const traced = () =>
    inSpan(
      'execute_tool bench',
      { kind: SpanKind.CLIENT, attributes: { 'gen_ai.tool.name': 'x' } },
      async () => {
        withTraceHeaders();
        activeTraceIds();
        return work();
      },
    );
  const loop = async (fn) => {
    for (let i = 0; i < 10_000; i++) await fn(); // warm-up
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    return Number(process.hrtime.bigint() - start) / n;
  };
  const bare = await loop(work);
  const withCalls = await loop(traced);
  return { n, bareNs: bare, tracedNs: withCalls, addedNs: Math.max(0, withCalls - bare) };
}
