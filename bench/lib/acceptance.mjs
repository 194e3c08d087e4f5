// Part (3) of bench/system.bench.mjs: goal acceptance through the gateway (POST /v1/goals → 202), sequential and 16 in
// flight, beside the same acceptance without HTTP (`acceptGoal` of libs/bus on the KV goal store, from this process:
// the KV create and the acknowledged GOALS publish alone), so the table shows what the HTTP layer adds. The gateway's
// first requests (its warm-up, while V8 still optimizes its code) are a row of their own, apart from the measured rows.
//
// The HTTP client runs in this process, on the same cores as the gateway, so its own cost is part of every figure. The
// rows are measured with undici's `request` on a keep-alive pool (one connection per client in flight, no pipelining:
// what a service calling the API does); the fetch row beside them is the same load through `fetch` (which costs this
// process several times more CPU per request: WHATWG streams, Request/Response objects), the client of earlier runs.
// Beside the latencies, what does not depend on the machine's load: the gateway's CPU time per request (from
// /proc/<pid>/stat, Linux) and the NATS messages it sent per request (/connz).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { concurrent, sequential } from './dispatch.mjs';
import { keepAlivePoster } from './goal-scenario.mjs';
import { cpuCell, markdownTable, ms, summarize, withCpu } from './report.mjs';

const require = createRequire(import.meta.url);

/** Requests per slice of the 16-concurrent gateway row whose p99 is shown beside the whole row's. */
const SLICE = 500;

/** p99 of each consecutive `size` samples (a last, shorter slice only when it holds at least half of `size`). */
function sliceP99(samples, size) {
  const out = [];
  for (let i = 0; i < samples.length; i += size) {
    const slice = samples.slice(i, i + size);
    if (slice.length >= size / 2 || out.length === 0) out.push(summarize(slice).p99);
  }
  return out;
}

/** Messages the gateway's NATS connection sent so far (its connection is named after its instance id). */
async function gatewayMessages(monitorUrl, name) {
  const { connections = [] } = await (await fetch(`${monitorUrl}/connz?limit=4096`)).json();
  return connections.find((c) => c.name === name)?.in_msgs;
}

/**
 * `run()` measured with the CPU time per request of this process (the client), the gateway and the nats-server, and the
 * NATS messages the gateway sent per request.
 */
async function withGatewayCost(gateway, n, run) {
  const msgs0 = await gatewayMessages(gateway.monitorUrl, gateway.name);
  const result = await withCpu(n, { gateway: [gateway.pid], nats: [gateway.natsPid] }, run);
  const msgs1 = await gatewayMessages(gateway.monitorUrl, gateway.name);
  const gatewayCpuMs = result.cpuUs.gateway === undefined ? undefined : result.cpuUs.gateway / 1000;
  const perRequest = msgs0 === undefined || msgs1 === undefined ? undefined : (msgs1 - msgs0) / n;
  return { ...result, gatewayCpuMs, gatewayNatsMessages: perRequest };
}

export async function acceptanceBench({ root, nc, opts, gateway, fetchPost, log, results, tables }) {
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
  const client = keepAlivePoster(gateway.url, 16);
  const post = () => client.post({ goal: 'benchmark goal' });
  const n = opts.accept;
  const warmup = opts.acceptWarmup;
  log(
    `(3) goal acceptance: a warm-up of ${warmup} requests, then ${n} requests 16 in flight, then sequential`,
  );
  // The gateway's first few thousand requests still run code V8 has not optimized yet (its CPU per request falls by
  // about a third over them): the warm-up is reported as a row of its own and kept out of the measured rows. The
  // 16-concurrent row follows it directly: after a few seconds of sequential requests V8 optimizes part of the
  // gateway's request path again when 16 arrive at once, which slowed the first few hundred requests of a row.
  await sequential(30, () => client.post({ goal: 'warm up' }));
  await sequential(30, () => fetchPost({ goal: 'warm up' }));
  await sequential(30, direct);
  const warm16 = await withGatewayCost(gateway, warmup, () =>
    concurrent(warmup, 16, () => client.post({ goal: 'warm up' })),
  );
  const { samples: http16Samples, ...http16 } = await withGatewayCost(gateway, n, () =>
    concurrent(n, 16, post, { keepSamples: true }),
  );
  const slices = sliceP99(http16Samples, SLICE);
  // The fetch client opens its 16 connections before its row is measured.
  await concurrent(64, 16, () => fetchPost({ goal: 'warm up' }));
  const fetch16 = await withGatewayCost(gateway, n, () =>
    concurrent(n, 16, () => fetchPost({ goal: 'benchmark goal' })),
  );
  const http = await withGatewayCost(gateway, n, async () => ({ latency: await sequential(n, post) }));
  await client.close();
  const natsOnly = { nats: [gateway.natsPid] };
  const bus = await withCpu(n, natsOnly, async () => ({ latency: await sequential(n, direct) }));
  const bus16 = await withCpu(n, natsOnly, () => concurrent(n, 16, direct));
  results.accept = {
    warmup: { requests: warmup, concurrent16: warm16 },
    sequential: http.latency,
    concurrent16: { ...http16, sliceP99: slices },
    fetchConcurrent16: fetch16,
    busSequential: bus.latency,
    busConcurrent16: bus16,
    gateway: {
      cpuMsPerRequest: { sequential: http.gatewayCpuMs, concurrent16: http16.gatewayCpuMs },
      natsMessagesPerRequest: {
        sequential: http.gatewayNatsMessages,
        concurrent16: http16.gatewayNatsMessages,
      },
    },
  };
  const cost = (r) => cpuCell(r.cpuUs, 'ms', 1 / 1000);
  const msgs = (r) => (r.gatewayNatsMessages === undefined ? '—' : r.gatewayNatsMessages.toFixed(2));
  const row = (path, mode, s, perSecond, r) => [
    path,
    mode,
    ms(s.p50),
    ms(s.p99),
    `${perSecond.toFixed(0)}/s`,
    cost(r),
    msgs(r),
  ];
  tables.push(
    `### (3) Goal acceptance (${n} requests per measured row, after a warm-up of ${warmup}: KV record created + ` +
      'GOALS publish acknowledged)\n\n' +
      markdownTable(
        [
          'path',
          'mode',
          'p50 ms',
          'p99 ms',
          'throughput',
          'CPU ms / request: client + gateway + nats-server',
          'gateway NATS msgs / request',
        ],
        [
          row(
            `gateway POST /v1/goals, warm-up (its first ${warmup} requests)`,
            '16 concurrent',
            warm16.latency,
            warm16.perSecond,
            warm16,
          ),
          row('gateway POST /v1/goals', 'sequential', http.latency, 1000 / http.latency.mean, http),
          row('gateway POST /v1/goals', '16 concurrent', http16.latency, http16.perSecond, http16),
          row(
            'gateway POST /v1/goals (fetch client)',
            '16 concurrent',
            fetch16.latency,
            fetch16.perSecond,
            fetch16,
          ),
          row('acceptGoal, no HTTP', 'sequential', bus.latency, 1000 / bus.latency.mean, bus),
          row('acceptGoal, no HTTP', '16 concurrent', bus16.latency, bus16.perSecond, bus16),
        ],
      ) +
      `\n\nThe 16-concurrent gateway row, p99 of each ${SLICE} requests in the order they ended: ` +
      `${slices.map((x) => ms(x)).join(', ')} ms (a p99 of a few hundred requests is the slowest few, which one ` +
      'pause of the machine or of a process sets). ' +
      'The client (undici `request`, keep-alive, in the bench process) shares the 2 cores with the gateway and ' +
      'NATS; the fetch row is the same load through `fetch`. CPU per request: what each process used during the row ' +
      'divided by its requests (the acceptGoal rows: client + nats-server), which the load of the machine does not ' +
      'change; the gateway and nats-server figures come from /proc in 10 ms steps.',
  );
}
