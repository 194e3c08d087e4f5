#!/usr/bin/env node
// Whole-system benchmark (issue 7, item 6), on a private nats-server started here:
//   (1) tool dispatch round trip: the orchestrator's RemoteToolExecutor → a no-op tool hosted like the tool-runner
//       hosts tools (ToolHost: micro endpoint, validation; read-only, and without hints: at-most-once KV record) vs
//       raw NATS request-reply, and the at-most-once path vs raw + its two KV writes, same run (bench/lib/dispatch.mjs);
//   (2) tool throughput (no-op read-only, no-op at-most-once, CPU-bound) with 1 and 2 runner processes vs raw NATS;
//   (3) gateway goal acceptance latency (POST /v1/goals → 202, which includes the KV record and the GOALS publish ack);
//   (4) N concurrent goals through gateway → 2 orchestrators → model with a fixed per-call latency (the scripted
//       OpenAI-compatible server), total time vs the ideal latency-bound time.
// (5) the resource search figures come from bench/resources.bench.mjs (same `npm run bench`).
//
//   (1b, 4) tracing off vs on in the same run (issue 15): dispatch and the goals again with every process exporting its
//       spans to an OTLP receiver stub in this process (bench/lib/tracing.mjs).
//
//   node bench/system.bench.mjs [--calls 2000] [--throughput-calls 20000] [--throughput-warmup 20000]
//                               [--concurrency 64] [--accept 2000]
//                               [--accept-warmup 3000] [--goals 100[,1000]] [--llm-ms 200]
//                               [--only dispatch,throughput,accept,goals] [--tracing off,on] [--goal-runs 3]
// Needs the compiled workspace (`npm run bench` builds it). Writes bench-results/system-<timestamp>.{json,md} and
// bench-results/latest-system.md (what `npm run benchmarks:write` puts into BENCHMARKS.md), with the targets side by
// side with their baselines (bench/lib/targets.mjs).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { goalPoster } from './lib/goal-scenario.mjs';
import { createInfra } from './lib/infra.mjs';
import { acceptanceBench } from './lib/acceptance.mjs';
import { dispatchBench, stopChild } from './lib/dispatch.mjs';
import { goalsBench } from './lib/goals.mjs';
import { positiveInts } from './lib/report.mjs';
import { runHeader, targetsTable } from './lib/targets.mjs';
import { startOtlpStub } from './lib/tracing.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: false,
  options: {
    calls: { type: 'string' },
    'throughput-calls': { type: 'string' },
    'throughput-warmup': { type: 'string' },
    concurrency: { type: 'string' },
    accept: { type: 'string' },
    'accept-warmup': { type: 'string' },
    goals: { type: 'string' },
    'llm-ms': { type: 'string' },
    'goal-runs': { type: 'string' },
    only: { type: 'string' },
    tracing: { type: 'string' },
  },
});
const list = (text) =>
  String(text)
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const goalCounts = list(values.goals ?? '100').map(Number);
if (goalCounts.length === 0 || !goalCounts.every((n) => Number.isInteger(n) && n > 0)) {
  console.error('--goals must be positive integers separated by commas');
  process.exit(2);
}
const tracingModes = list(values.tracing ?? 'off,on');
if (!tracingModes.every((m) => m === 'off' || m === 'on') || !tracingModes.includes('off')) {
  console.error('--tracing must be off or off,on');
  process.exit(2);
}
const int = positiveInts(values);
const opts = {
  calls: int('calls', 2000),
  throughputCalls: int('throughput-calls', 20000),
  throughputWarmup: int('throughput-warmup', 20000),
  concurrency: int('concurrency', 64),
  accept: int('accept', 2000),
  acceptWarmup: int('accept-warmup', 3000),
  goals: goalCounts,
  tracing: tracingModes,
  llmMs: int('llm-ms', 200),
  goalRuns: int('goal-runs', 3),
  only: new Set(String(values.only ?? 'dispatch,throughput,accept,goals').split(',')),
};

const { tmp, children, log, freePort, startProcess, startNatsServer, startService } = createInfra(root);

const header = runHeader(process.argv.slice(2));
const results = {
  machine: header.machine,
  options: { ...opts, only: [...opts.only] },
  at: header.at,
};
const tables = [];

async function main() {
  const { url: natsUrl, monitorUrl, nc, pid: natsPid } = await startNatsServer();
  const otlp = await startOtlpStub();
  const ctx = {
    root,
    nc,
    natsUrl,
    monitorUrl,
    natsPid,
    tmp,
    opts,
    startProcess,
    startService,
    freePort,
    log,
    results,
    tables,
    otlp,
  };

  if (opts.only.has('dispatch') || opts.only.has('throughput')) await dispatchBench(ctx);

  let gatewayUrl;
  let gateway;
  if (opts.only.has('accept')) {
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    gateway = await startService(nc, 'gateway', 'bench-gw', {
      NATS_URL: natsUrl,
      PORT: String(port),
      NOVELRAG_AUTH_DISABLED: 'true',
      NOVELRAG_RATE_LIMIT_PER_MIN: '1000000',
    });
  }
  const post = goalPoster(gatewayUrl);

  if (opts.only.has('accept')) {
    const bench = { pid: gateway.pid, url: gatewayUrl, monitorUrl, name: 'bench-gw', natsPid: natsPid() };
    await acceptanceBench({ root, nc, opts, gateway: bench, fetchPost: post, log, results, tables });
    // Nobody consumed those goals: drop them so the orchestrators of (4) only see their own.
    await (await jetstreamManager(nc)).streams.purge('GOALS');
    await stopChild(gateway);
  }

  if (opts.only.has('goals')) await goalsBench(ctx);

  const stamp = results.at.replace(/[:.]/g, '-');
  mkdirSync(path.join(root, 'bench-results'), { recursive: true });
  const md = `${header.markdown('System benchmark (`bench/system.bench.mjs`)')}\n\n${targetsTable(results)}\n\n${tables.join('\n\n')}\n`;
  writeFileSync(path.join(root, 'bench-results', `system-${stamp}.json`), JSON.stringify(results, null, 2));
  writeFileSync(path.join(root, 'bench-results', `system-${stamp}.md`), md);
  // The figures BENCHMARKS.md is assembled from, unless only part of the benchmark ran.
  const whole = ['dispatch', 'throughput', 'accept', 'goals'].every((part) => opts.only.has(part));
  if (whole) writeFileSync(path.join(root, 'bench-results', 'latest-system.md'), md);
  console.log(`\n${md}`);
  console.log(
    `written: bench-results/system-${stamp}.{json,md}${whole ? ' and bench-results/latest-system.md' : ''}`,
  );
  await otlp.close();
  await nc.close();
}

try {
  await main();
} catch (err) {
  console.error(`system benchmark failed: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  // Stopped gracefully (a process run with --cpu-prof writes its profile as it exits), bounded; NATS last.
  await Promise.all(children.filter((c) => c.spawnargs[0] !== 'nats-server').map(stopChild));
  for (const c of children.reverse()) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
