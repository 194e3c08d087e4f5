// A benchmark tool-runner process: hosts the no-op tool `BenchNoop` exactly as the tool-runner hosts its tools
// (ToolHost from libs/tool-kit: micro endpoint in the queue group, parameter validation, deadline, at-most-once record
// in the tool-results KV bucket), plus a raw NATS responder on `bench.raw` in a queue group for the baseline.
//   NATS_URL=… BENCH_INSTANCE=runner-1 node bench/lib/noop-runner.mjs   → prints "ready" when serving
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { ToolHost, defineTool } = require(path.join(root, 'libs/tool-kit/dist/index.js'));
const { MicroServiceNames } = require(path.join(root, 'libs/contracts/dist/index.js'));

const nc = await connect({ servers: process.env.NATS_URL, name: process.env.BENCH_INSTANCE });
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
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
