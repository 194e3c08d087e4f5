// A benchmark tool-runner process: hosts the benchmark tools exactly as the tool-runner hosts its tools (ToolHost
// from libs/tool-kit: micro endpoint in the queue group, parameter validation, deadline, and the at-most-once record in
// the tool-results KV bucket for tools that need it): `BenchNoop` (read-only no-op), `BenchNoopOnce` (the same without
// hints, so at-most-once) and `BenchSpin` (read-only, a fixed amount of CPU work: BENCH_SPIN_ITERATIONS of PBKDF2),
// plus a raw NATS responder on `bench.raw` in a queue group for the baseline.
//   NATS_URL=… BENCH_INSTANCE=runner-1 node bench/lib/noop-runner.mjs   → prints "ready" when serving
import { pbkdf2Sync } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { ToolHost, defineTool } = require(path.join(root, 'libs/tool-kit/dist/index.js'));
const { MicroServiceNames } = require(path.join(root, 'libs/contracts/dist/index.js'));

// Traced like a service when the OTLP endpoint is set (the tracing rows of the dispatch benchmark).
let tracing;
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const { startTracing, TelemetryEnv } = require(path.join(root, 'libs/telemetry/dist/index.js'));
  tracing = startTracing(
    { service: 'bench-runner', instanceId: process.env.BENCH_INSTANCE ?? 'bench', version: 'bench' },
    TelemetryEnv.parse(process.env),
  );
}
const spinIterations = Number(process.env.BENCH_SPIN_ITERATIONS ?? 20_000);
const nc = await connect({
  servers: process.env.NATS_URL,
  name: process.env.BENCH_INSTANCE,
  noAsyncTraces: true, // as services connect (libs/bus connectBus)
});
const host = new ToolHost({
  connection: nc,
  serviceName: MicroServiceNames.toolService('bench'),
  version: '1.0.0',
  instanceId: process.env.BENCH_INSTANCE ?? `bench-${process.pid}`,
  maxConcurrency: Number(process.env.BENCH_CONCURRENCY ?? 64),
  tools: [
    defineTool({
      name: 'BenchNoop',
      description: 'Does nothing (benchmark)',
      inputSchema: { type: 'object', properties: {} },
      timeoutMs: 30_000,
      hints: { readOnly: true, idempotent: true },
      handler: () => 'ok',
    }),
    defineTool({
      name: 'BenchNoopOnce',
      description: 'Does nothing, declares no hints (benchmark of the at-most-once path)',
      inputSchema: { type: 'object', properties: {} },
      timeoutMs: 30_000,
      handler: () => 'ok',
    }),
    defineTool({
      name: 'BenchSpin',
      description: 'Burns a fixed amount of CPU (benchmark)',
      inputSchema: { type: 'object', properties: {} },
      timeoutMs: 30_000,
      hints: { readOnly: true, idempotent: true },
      handler: () => pbkdf2Sync('bench', 'salt', spinIterations, 32, 'sha256').toString('hex').slice(0, 8),
    }),
  ],
});
await host.start();
nc.subscribe('bench.raw', { queue: 'bench', callback: (_err, msg) => msg.respond('ok') });
await nc.flush();
console.log('ready');
const stop = () =>
  void host
    .stop(2_000)
    .then(() => nc.drain())
    .then(() => tracing?.shutdown())
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
