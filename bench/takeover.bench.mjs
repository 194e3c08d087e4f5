#!/usr/bin/env node
// Takeover benchmark (issue 18, deliverable 3): how long a goal held by an orchestrator killed with SIGKILL takes to
// resume on another instance. Each trial: the surviving orchestrator of the previous trial picks up a fresh goal (the
// model answers every call after `--llm-ms`, so the goal is mid-pursuit), a new orchestrator starts, then after a
// random 0–1 s (any phase of the heartbeats) the holder is killed; the time from the kill to the goal's second
// `goal.started` (attempt 2, seen on the bus) is the takeover. Printed as p50/p95/p99/max, with the same measure under
// the previous defaults (60 s ack wait, 30 s thread lease) as the baseline of the same run.
//
//   node bench/takeover.bench.mjs [--trials 10] [--baseline-trials 1] [--llm-ms 2500]   (about 4 min with the defaults)
// With --nats-restart, the trials restart the nats-server instead (kill -9, same port and store; one orchestrator):
// the time from the kill until the in-flight goal goes on, and goal durations against goals without a restart.
// Needs the compiled workspace (`npm run bench` builds it; BENCH_ONLY=takeover runs this one).
// Writes bench-results/takeover-<timestamp>.{json,md}.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { finalizeAtOnceScenario, goalPoster } from './lib/goal-scenario.mjs';
import { createInfra } from './lib/infra.mjs';
import { natsRestartTrials } from './lib/nats-restart-trials.mjs';
import { machine, markdownTable, ms, positiveInts, ratio, summarize } from './lib/report.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { startScriptedLlm } = await import(path.join(root, 'tools/demo/scripted-llm.mjs'));

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: false,
  options: {
    trials: { type: 'string' },
    'baseline-trials': { type: 'string' },
    'llm-ms': { type: 'string' },
    'nats-restart': { type: 'boolean' },
  },
});
const int = positiveInts(values);
const opts = {
  trials: int('trials', 10),
  baselineTrials: Math.max(0, Math.floor(Number(values['baseline-trials'] ?? 1)) || 0),
  llmMs: int('llm-ms', 2500),
  natsRestart: values['nats-restart'] === true,
};
const BASELINE = { NOVELRAG_GOAL_ACK_WAIT_MS: '60000', NOVELRAG_THREAD_LEASE_MS: '30000' };

const { tmp, children, log, freePort, startNatsServer, startService } = createInfra(root);

/** Goal trace events seen on the bus, and waits for one (bounded). */
function goalEvents(nc) {
  const seen = [];
  const waiters = [];
  nc.subscribe('novelrag.trace.>', {
    callback: (_err, msg) => {
      let event;
      try {
        event = msg.json();
      } catch {
        return;
      }
      const item = { event, at: performance.now() };
      seen.push(item);
      for (const w of [...waiters])
        if (w.match(event, item.at)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(item));
    },
  });
  const waitFor = (match, timeoutMs, what) => {
    const hit = seen.find((s) => match(s.event, s.at));
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${what}: not seen within ${timeoutMs} ms`)),
        timeoutMs,
      );
      waiters.push({ match, resolve: (item) => (clearTimeout(timer), resolve(item)) });
    });
  };
  return { waitFor, seenAny: (match) => seen.some((s) => match(s.event)) };
}

const FINAL = ['goal.completed', 'goal.failed', 'goal.abandoned', 'goal.cancelled'];

/** `trials` kill -9 takeovers with the orchestrators started with `extraEnv`; returns the takeover times (ms). */
async function trials(label, count, ctx, extraEnv) {
  const { nc, env, post, events } = ctx;
  const { waitFor } = events;
  let n = 0;
  const start = () => startService(nc, 'orchestrator', `${label}-orch-${++n}`, { ...env, ...extraEnv });
  let holder = await start();
  const samples = [];
  for (let i = 0; i < count; i++) {
    const { goalId } = await post({ goal: `takeover trial ${label} ${i}` });
    const isGoal = (kind, attempt) => (e) =>
      e.goalId === goalId && e.kind === kind && (attempt === undefined || e.attempt === attempt);
    await waitFor(isGoal('goal.started', 1), 60_000, `${goalId} started`);
    const next = await start(); // the instance that takes over
    await new Promise((r) => setTimeout(r, Math.random() * 1_000));
    if (events.seenAny((e) => e.goalId === goalId && FINAL.includes(e.kind))) {
      log(`${label} trial ${i}: the goal ended before the kill (raise --llm-ms); not counted`);
      holder.kill('SIGKILL');
      holder = next;
      continue;
    }
    const exited = new Promise((r) => holder.once('exit', r));
    const killedAt = performance.now();
    holder.kill('SIGKILL');
    await exited;
    const resumed = await waitFor(isGoal('goal.started', 2), 180_000, `${goalId} resumed`);
    const takeover = resumed.at - killedAt;
    samples.push(takeover);
    log(`${label} trial ${i + 1}/${count}: takeover ${ms(takeover)} ms`);
    await waitFor((e) => e.goalId === goalId && FINAL.includes(e.kind), 180_000, `${goalId} finished`);
    holder = next;
  }
  holder.kill('SIGKILL');
  return samples;
}

async function main() {
  const { url: natsUrl, nc, restart } = await startNatsServer();
  const port = await freePort();
  const gatewayUrl = `http://127.0.0.1:${port}`;
  await startService(nc, 'gateway', 'bench-gw', {
    NATS_URL: natsUrl,
    PORT: String(port),
    NOVELRAG_AUTH_DISABLED: 'true',
    NOVELRAG_RATE_LIMIT_PER_MIN: '1000000',
  });
  const post = goalPoster(gatewayUrl);
  // Four model calls of `llmMs` each per attempt: the goal is mid-pursuit when its holder is killed.
  const llm = await startScriptedLlm({
    scenario: finalizeAtOnceScenario('takeover', 'scripted-takeover'),
    delayMs: opts.llmMs,
  });
  const env = {
    NATS_URL: natsUrl,
    NOVELRAG_DATA_DIR: path.join(tmp, 'store'),
    OPENAI_BASE_URL: llm.baseURL,
    OPENAI_API_KEY: 'bench',
    NOVELRAG_MODEL: 'scripted-takeover',
  };
  await startService(nc, 'resource-service', 'bench-rs', env);
  const ctx = { nc, env, post, events: goalEvents(nc) };

  const results = { machine: machine(), options: opts, at: new Date().toISOString() };
  if (opts.natsRestart) {
    await reportNatsRestart(results, ctx, restart);
    await llm.close();
    return;
  }
  log(`baseline (previous defaults: 60 s ack wait, 30 s lease): ${opts.baselineTrials} trial(s)`);
  const baseline = summarize(await trials('base', opts.baselineTrials, ctx, BASELINE));
  log(`defaults: ${opts.trials} trials`);
  const current = summarize(await trials('new', opts.trials, ctx, {}));
  results.takeover = { defaults: current, baseline };
  results.machine.loadAverageAfter = machine().loadAverage;

  const row = (name, s) => summaryRow(name, s, ratio(s.p50, baseline.p50));
  const table = markdownTable(
    ['settings', 'trials', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'p50 vs baseline'],
    [
      row('defaults (3 s ack wait, 3 s lease)', current),
      row('baseline (60 s ack wait, 30 s lease)', baseline),
    ],
  );
  write(results, 'takeover', 'Takeover after orchestrator kill -9', `${table}\n`);
  await nc.close();
  await llm.close();
}

/** A table row: the name, the sample count, p50/p95/p99/max and `vs` (a ratio to the baseline). */
const summaryRow = (name, s, vs) => [name, s.n, ms(s.p50), ms(s.p95), ms(s.p99), ms(s.max), vs];

/** Prints the report and writes bench-results/<name>-<timestamp>.{json,md}. */
function write(results, name, title, body) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(path.join(root, 'bench-results'), { recursive: true });
  const m = results.machine;
  const md = `## ${title} (${results.at})\n\nMachine: ${m.cpu}, ${m.cores} cores, load average ${m.loadAverage.join(' ')} → ${m.loadAverageAfter.join(' ')}, Node ${m.node}; model latency ${opts.llmMs} ms per call\n\n${body}`;
  writeFileSync(path.join(root, 'bench-results', `${name}-${stamp}.json`), JSON.stringify(results, null, 2));
  writeFileSync(path.join(root, 'bench-results', `${name}-${stamp}.md`), md);
  console.log(`\n${md}`);
  console.log(`written: bench-results/${name}-${stamp}.{json,md}`);
}

/** The --nats-restart trials, printed and written like the takeover ones. */
async function reportNatsRestart(results, ctx, restart) {
  const orchestrator = await startService(ctx.nc, 'orchestrator', 'restart-orch', ctx.env);
  const { baseline, restarted } = await natsRestartTrials(opts.trials, ctx, restart, log);
  orchestrator.kill('SIGKILL');
  const resume = summarize(restarted.map((r) => r.resume));
  const finish = summarize(restarted.map((r) => r.finish));
  const base = summarize(baseline);
  const outcomes = restarted.map((r) => r.outcome);
  results.natsRestart = { resume, finish, baseline: base, outcomes };
  results.machine.loadAverageAfter = machine().loadAverage;
  const row = (name, s, vs = ratio(s.p50, base.p50)) => summaryRow(name, s, vs);
  const table = markdownTable(
    ['measure', 'goals', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'p50 vs goal without restart'],
    [
      row('kill -9 of nats-server → the goal goes on', resume, '—'),
      row('goal duration with a restart', finish),
      row('goal duration without a restart (baseline)', base),
    ],
  );
  const done = outcomes.filter((o) => o === 'goal.completed').length;
  write(
    results,
    'takeover-nats-restart',
    `Takeover after nats-server kill -9 and restart`,
    `${table}
Completed: ${done}/${outcomes.length}
`,
  );
  await ctx.nc.close();
}

try {
  await main();
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
