// Tracing in the benchmarks (issue 15): an OTLP/HTTP receiver stub in this process that the services (and this process)
// export their spans to, tracing switched on in this process for the "on" rows, and the cost of the tracing calls
// when tracing is off (no SDK installed: the OpenTelemetry API is a no-op), measured directly.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);

/** Accepts `POST /v1/traces` (OTLP/HTTP JSON, gzip or not), counts the spans, answers 200 at once. */
export async function startOtlpStub() {
  let spans = 0;
  let exports = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      exports += 1;
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const json = JSON.parse(body.toString('utf8'));
        for (const rs of json.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
      } catch {
        // not JSON (protobuf): counted as an export only
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get spans() {
      return spans;
    },
    get exports() {
      return exports;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
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
