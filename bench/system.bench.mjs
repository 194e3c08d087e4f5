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
//   node bench/system.bench.mjs [--calls 2000] [--throughput-calls 5000] [--concurrency 64] [--accept 300]
//                               [--goals 100] [--llm-ms 200] [--only dispatch,throughput,accept,goals]
// Needs the compiled workspace (`npm run bench` builds it). Writes bench-results/system-<timestamp>.{json,md}.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { finalizeAtOnceScenario, goalPoster } from './lib/goals.mjs';
import { createInfra } from './lib/infra.mjs';
import { acceptanceBench } from './lib/acceptance.mjs';
import { concurrent, dispatchBench, sequential } from './lib/dispatch.mjs';
import { machine, markdownTable, ms, positiveInts, ratio, summarize } from './lib/report.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { startScriptedLlm } = await import(path.join(root, 'tools/demo/scripted-llm.mjs'));

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: false,
  options: {
    calls: { type: 'string' },
    'throughput-calls': { type: 'string' },
    concurrency: { type: 'string' },
    accept: { type: 'string' },
    goals: { type: 'string' },
    'llm-ms': { type: 'string' },
    only: { type: 'string' },
  },
});
const int = positiveInts(values);
const opts = {
  calls: int('calls', 2000),
  throughputCalls: int('throughput-calls', 5000),
  concurrency: int('concurrency', 64),
  accept: int('accept', 300),
  goals: int('goals', 100),
  llmMs: int('llm-ms', 200),
  only: new Set(String(values.only ?? 'dispatch,throughput,accept,goals').split(',')),
};

const { tmp, children, log, freePort, startProcess, startNatsServer, startService } = createInfra(root);

const results = {
  machine: machine(),
  options: { ...opts, only: [...opts.only] },
  at: new Date().toISOString(),
};
const tables = [];

async function main() {
  const { url: natsUrl, nc } = await startNatsServer();
  const raw = async () => {
    await nc.request('bench.raw', '', { timeout: 10_000 });
  };

  if (opts.only.has('dispatch') || opts.only.has('throughput'))
    await dispatchBench({ root, nc, natsUrl, opts, startProcess, log, results, tables });

  let gatewayUrl;
  if (opts.only.has('accept') || opts.only.has('goals')) {
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    await startService(nc, 'gateway', 'bench-gw', {
      NATS_URL: natsUrl,
      PORT: String(port),
      NOVELRAG_AUTH_DISABLED: 'true',
      NOVELRAG_RATE_LIMIT_PER_MIN: '1000000',
    });
  }
  const post = goalPoster(gatewayUrl);

  if (opts.only.has('accept')) {
    await acceptanceBench({ root, nc, opts, post, log, results, tables });
    // Nobody consumed those goals: drop them so the orchestrators of (4) only see their own.
    await (await jetstreamManager(nc)).streams.purge('GOALS');
  }

  if (opts.only.has('goals')) await concurrentGoals(nc, natsUrl, post);

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(path.join(root, 'bench-results'), { recursive: true });
  const md = `## System benchmark (${results.at})\n\nMachine: ${results.machine.cpu}, ${results.machine.cores} cores, ${results.machine.memoryGb} GB, ${results.machine.os}, Node ${results.machine.node}\n\n${tables.join('\n\n')}\n`;
  writeFileSync(path.join(root, 'bench-results', `system-${stamp}.json`), JSON.stringify(results, null, 2));
  writeFileSync(path.join(root, 'bench-results', `system-${stamp}.md`), md);
  console.log(`\n${md}`);
  console.log(`written: bench-results/system-${stamp}.{json,md}`);
  await nc.close();
}

/** (4): N goals at once, each answered by the model in `llmMs` per call; ideal = calls per goal × latency. */
async function concurrentGoals(nc, natsUrl, post) {
  const scenario = finalizeAtOnceScenario('bench', 'scripted-bench');
  const llm = await startScriptedLlm({ scenario, delayMs: opts.llmMs });
  const perOrchestrator = Math.min(64, Math.ceil(opts.goals / 2));
  const env = {
    NATS_URL: natsUrl,
    NOVELRAG_DATA_DIR: path.join(tmp, 'store'),
    OPENAI_BASE_URL: llm.baseURL,
    OPENAI_API_KEY: 'bench',
    NOVELRAG_MODEL: 'scripted-bench',
    NOVELRAG_GOAL_CONCURRENCY: String(perOrchestrator),
  };
  await startService(nc, 'resource-service', 'bench-rs', env);
  await startService(nc, 'orchestrator', 'bench-orch-1', env);
  await startService(nc, 'orchestrator', 'bench-orch-2', env);
  // Warm-up goal (connections, templates, JIT), not counted.
  const done = new Map();
  const waiters = new Map();
  const sub = nc.subscribe('novelrag.trace.*.goal.*', {
    callback: (_err, msg) => {
      const kind = msg.subject.split('.').slice(3).join('.');
      if (!['goal.completed', 'goal.failed', 'goal.abandoned', 'goal.cancelled'].includes(kind)) return;
      const id = msg.subject.split('.')[2];
      done.set(id, { kind, at: process.hrtime.bigint() });
      waiters.get(id)?.();
    },
  });
  const finished = (id, timeoutMs) =>
    new Promise((resolve, reject) => {
      if (done.has(id)) return resolve(done.get(id));
      const timer = setTimeout(
        () => reject(new Error(`goal ${id} did not finish within ${timeoutMs} ms`)),
        timeoutMs,
      );
      waiters.set(id, () => {
        clearTimeout(timer);
        resolve(done.get(id));
      });
    });
  const warm = await post({ goal: 'warm up' });
  await finished(warm.goalId, 60_000);
  const servedBefore = llm.stats.served;
  log(
    `(4) ${opts.goals} concurrent goals, model latency ${opts.llmMs} ms per call, 2 orchestrators × ${perOrchestrator}`,
  );
  const start = process.hrtime.bigint();
  const accepted = await Promise.all(
    Array.from({ length: opts.goals }, (_, i) => post({ goal: `benchmark goal ${i}` })),
  );
  const ends = await Promise.all(accepted.map((a) => finished(a.goalId, 300_000)));
  const totalMs = Number(ends.reduce((m, e) => (e.at > m ? e.at : m), 0n) - start) / 1e6;
  const completed = ends.filter((e) => e.kind === 'goal.completed').length;
  const callsPerGoal = (llm.stats.served - servedBefore) / opts.goals;
  const idealMs = callsPerGoal * opts.llmMs;
  const perGoal = summarize(ends.map((e) => Number(e.at - start) / 1e6));
  sub.unsubscribe();
  await llm.close();
  results.goals = {
    goals: opts.goals,
    completed,
    llmMs: opts.llmMs,
    callsPerGoal,
    totalMs,
    idealMs,
    perGoal,
    perOrchestrator,
  };
  tables.push(
    `### (4) ${opts.goals} concurrent goals, model latency ${opts.llmMs} ms per call\n\n` +
      markdownTable(
        [
          'goals',
          'completed',
          'model calls/goal',
          'total ms',
          'ideal ms (calls × latency)',
          'total / ideal',
          'p50 goal ms',
          'p99 goal ms',
        ],
        [
          [
            String(opts.goals),
            String(completed),
            callsPerGoal.toFixed(1),
            ms(totalMs),
            ms(idealMs),
            ratio(totalMs, idealMs),
            ms(perGoal.p50),
            ms(perGoal.p99),
          ],
        ],
      ),
  );
}

try {
  await main();
} catch (err) {
  console.error(`system benchmark failed: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  for (const c of children.reverse()) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
