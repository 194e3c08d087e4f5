// Part (3) of bench/system.bench.mjs: goal acceptance through the gateway (POST /v1/goals → 202), sequential and 16 in
// flight, beside the same acceptance without HTTP (`acceptGoal` of libs/bus on the KV goal store, from this process:
// the KV create and the acknowledged GOALS publish alone), so the table shows what the HTTP layer adds.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { concurrent, sequential } from './dispatch.mjs';
import { markdownTable, ms } from './report.mjs';

const require = createRequire(import.meta.url);

export async function acceptanceBench({ root, nc, opts, post, log, results, tables }) {
  const { KvGoalStore, acceptGoal } = require(path.join(root, 'libs/bus/dist/index.js'));
  const { SCHEMA_VERSION } = require(path.join(root, 'libs/contracts/dist/index.js'));
  const store = await KvGoalStore.open(nc);
  const direct = () =>
    acceptGoal(nc, store, {
      schemaVersion: SCHEMA_VERSION,
      goalId: `g-${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      goal: 'benchmark goal',
      beliefs: [],
      submittedAt: new Date().toISOString(),
      source: 'user',
    });
  log(`(3) goal acceptance, ${opts.accept} requests sequential, then 16 in flight`);
  await sequential(30, () => post({ goal: 'warm up' }));
  await sequential(30, direct);
  const http = await sequential(opts.accept, () => post({ goal: 'benchmark goal' }));
  const http16 = await concurrent(opts.accept, 16, () => post({ goal: 'benchmark goal' }));
  const bus = await sequential(opts.accept, direct);
  const bus16 = await concurrent(opts.accept, 16, direct);
  results.accept = { sequential: http, concurrent16: http16, busSequential: bus, busConcurrent16: bus16 };
  const row = (path, mode, s, perSecond) => [path, mode, ms(s.p50), ms(s.p99), `${perSecond.toFixed(0)}/s`];
  tables.push(
    `### (3) Goal acceptance (${opts.accept} requests per row: KV record created + GOALS publish acknowledged)\n\n` +
      markdownTable(
        ['path', 'mode', 'p50 ms', 'p99 ms', 'throughput'],
        [
          row('gateway POST /v1/goals', 'sequential', http, 1000 / http.mean),
          row('gateway POST /v1/goals', '16 concurrent', http16.latency, http16.perSecond),
          row('acceptGoal, no HTTP', 'sequential', bus, 1000 / bus.mean),
          row('acceptGoal, no HTTP', '16 concurrent', bus16.latency, bus16.perSecond),
        ],
      ),
  );
}
