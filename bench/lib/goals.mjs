// Part (4) of bench/system.bench.mjs: N goals at once through gateway → 2 orchestrators → a model with a fixed latency
// per call (the scripted OpenAI-compatible server), total time vs the ideal latency-bound time; for each tracing mode
// (off: no OTel SDK installed; on: every service exports its spans to the OTLP receiver stub of this process), with a
// fresh set of services per mode so both run the same code on the same data, one after the other in one run.
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { cpuReading } from './cpu.mjs';
import { finalizeAtOnceScenario, keepAlivePoster } from './goal-scenario.mjs';
import { markdownTable, ms, ratio, summarize } from './report.mjs';

const FINAL_KINDS = ['goal.completed', 'goal.failed', 'goal.abandoned', 'goal.cancelled'];
/** The rules of finalizeAtOnceScenario (by id): which of a goal's model calls each answers. */
const CALLS = {
  0: { n: 1, what: 'assessment' },
  1: { n: 2, what: 'discovery' },
  3: { n: 3, what: 'decision' },
  2: { n: 4, what: 'refinement' },
};

/** min, p50, max of `xs` (ms). */
function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], p50: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
}

/**
 * Resolves when a goal's final trace event arrives (bounded), from one subscription per final kind for every goal (only
 * those events reach this process: it is part of the measurement).
 */
function goalEnds(nc) {
  const done = new Map();
  const waiters = new Map();
  const subs = FINAL_KINDS.map((kind) =>
    nc.subscribe(`novelrag.trace.*.${kind}`, {
      callback: (_err, msg) => {
        const id = msg.subject.split('.')[2];
        done.set(id, { kind, at: process.hrtime.bigint() });
        waiters.get(id)?.();
      },
    }),
  );
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
  return { finished, close: () => subs.forEach((sub) => sub.unsubscribe()) };
}

/** Starts gateway, resource-service and 2 orchestrators with `extraEnv`; returns the POST helper and a stop. */
async function startSystem({
  natsUrl,
  tmp,
  nc,
  startService,
  freePort,
  llm,
  perOrchestrator,
  label,
  extraEnv,
}) {
  const port = await freePort();
  const env = {
    NATS_URL: natsUrl,
    NOVELRAG_DATA_DIR: path.join(tmp, `store-${label}`),
    OPENAI_BASE_URL: llm.baseURL,
    OPENAI_API_KEY: 'bench',
    NOVELRAG_MODEL: 'scripted-bench',
    NOVELRAG_GOAL_CONCURRENCY: String(perOrchestrator),
    ...extraEnv,
  };
  const started = [
    await startService(nc, 'gateway', `bench-gw-${label}`, {
      ...env,
      PORT: String(port),
      NOVELRAG_AUTH_DISABLED: 'true',
      NOVELRAG_RATE_LIMIT_PER_MIN: '1000000',
    }),
    await startService(nc, 'resource-service', `bench-rs-${label}`, env),
    await startService(nc, 'orchestrator', `bench-orch-1-${label}`, env),
    await startService(nc, 'orchestrator', `bench-orch-2-${label}`, env),
  ];
  // undici's request on a keep-alive pool, one connection per slot: the clients of a real deployment run elsewhere, and
  // fetch cost this process about three times the CPU per request (the acceptance rows), taken from the 2 cores the
  // system is measured on.
  const client = keepAlivePoster(`http://127.0.0.1:${port}`, 2 * perOrchestrator);
  const post = client.post;
  const [gateway, resources, orchestrator1, orchestrator2] = started;
  const pids = {
    gateway: gateway.pid,
    'resource-service': resources.pid,
    'orchestrator 1': orchestrator1.pid,
    'orchestrator 2': orchestrator2.pid,
  };

  const stop = async () => {
    await client.close();
    const exits = started.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null));
    for (const c of started) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 20_000))]);
    for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  };
  return { post, stop, pids };
}

/** Messages each client sent to the server so far, by connection name (NATS monitoring, /connz). */
async function sentByConnection(monitorUrl) {
  const res = await fetch(`${monitorUrl}/connz?limit=4096`);
  const { connections = [] } = await res.json();
  return new Map(connections.map((c) => [c.name ?? String(c.cid), c.in_msgs]));
}

/** Messages the orchestrators sent between two /connz readings (requests, publishes, acks: each one a message). */
function orchestratorMessages(before, after) {
  let sum = 0;
  for (const [name, count] of after)
    if (name.startsWith('bench-orch-')) sum += count - (before.get(name) ?? 0);
  return sum;
}

/** Resolves once the orchestrators acked every goal (bounded): their work on the goals is over. */
async function allAcked(nc) {
  const jsm = await jetstreamManager(nc);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const info = await jsm.consumers.info('GOALS', 'orchestrator');
    if (info.num_ack_pending === 0 && info.num_pending === 0) return;
    if (Date.now() > deadline)
      throw new Error(`goals not acked within 30 s: ${info.num_ack_pending} pending`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * One measurement: `goals` goals submitted at once, until the last final trace event; and the CPU time each process
 * spent on them (from the first submission until every goal was acked), per goal.
 */
async function runGoals({ goals, post, ends, llm, served, opts, slots, monitorUrl, nc, pids, log }) {
  const sentBefore = await sentByConnection(monitorUrl);
  const servedBefore = llm.stats.served;
  const cpuBefore = cpuReading(pids);
  const start = process.hrtime.bigint();
  const since = (at) => Number(at - start) / 1e6;
  served.length = 0;
  const acceptedMs = [];
  const accepted = await Promise.all(
    Array.from({ length: goals }, (_, i) =>
      post({ goal: `benchmark goal ${i}` }).then((a) => {
        acceptedMs.push(since(process.hrtime.bigint()));
        return a;
      }),
    ),
  );
  const done = await Promise.all(accepted.map((a) => ends.finished(a.goalId, 600_000)));
  const totalMs = Number(done.reduce((m, e) => (e.at > m ? e.at : m), 0n) - start) / 1e6;
  await allAcked(nc);
  const cpuMs = cpuReading(pids).since(cpuBefore);
  // For reading --cpu-prof profiles (BENCH_NODE_ARGS) over this run only: their sample times are on the same clock.
  const window = `${start / 1000n}-${process.hrtime.bigint() / 1000n} µs`;
  log(`(4) ${goals} goals: run window ${window}, pids ${JSON.stringify(pids)}`);
  const cpuMsPerGoal = Object.fromEntries(Object.entries(cpuMs).map(([name, x]) => [name, x / goals]));
  const callsPerGoal = (llm.stats.served - servedBefore) / goals;
  // When goals got where: their 202s, each model call (by the scenario's rule: the n-th call of a goal), their ends.
  const byRule = new Map();
  for (const { rule, at } of served) byRule.set(rule, [...(byRule.get(rule) ?? []), since(at)]);
  const timeline = [
    { what: 'accepted (202)', ...spread(acceptedMs) },
    ...[...byRule]
      .map(([rule, xs]) => ({ call: CALLS[rule] ?? { n: 99, what: `rule ${rule}` }, xs }))
      .sort((a, b) => a.call.n - b.call.n)
      .map(({ call, xs }) => ({ what: `model call ${call.n} (${call.what})`, ...spread(xs) })),
    { what: 'final trace event', ...spread(done.map((e) => since(e.at))) },
  ];
  // Latency-bound: every slot busy with model calls only; more goals than slots wait for a free one (waves).
  const idealMs = Math.ceil(goals / slots) * callsPerGoal * opts.llmMs;
  const messagesPerGoal = orchestratorMessages(sentBefore, await sentByConnection(monitorUrl)) / goals;
  return {
    messagesPerGoal,
    cpuMsPerGoal,
    goals,
    completed: done.filter((e) => e.kind === 'goal.completed').length,
    callsPerGoal,
    totalMs,
    idealMs,
    perGoal: summarize(done.map((e) => Number(e.at - start) / 1e6)),
    timeline,
  };
}

/**
 * Runs (4) for every goal count in `opts.goals` and every tracing mode in `opts.tracing` ('off', 'on'); pushes the
 * table to `tables` and the figures to `results.goals`.
 */
export async function goalsBench(ctx) {
  const { root, nc, opts, log, results, tables, otlp } = ctx;
  const { startScriptedLlm } = await import(path.join(root, 'tools/demo/scripted-llm.mjs'));
  const served = [];
  const llm = await startScriptedLlm({
    scenario: finalizeAtOnceScenario('bench', 'scripted-bench'),
    delayMs: opts.llmMs,
    onServe: (rule) => served.push({ rule, at: process.hrtime.bigint() }),
  });
  const maxGoals = Math.max(...opts.goals);
  const perOrchestrator = Math.min(64, Math.ceil(maxGoals / 2));
  const ends = goalEnds(nc);
  const rows = [];
  results.goals = [];
  try {
    for (const mode of opts.tracing) {
      const extraEnv =
        mode === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_TRACES_SAMPLER: 'always_on' } : {};
      log(`(4) tracing ${mode}: starting gateway, resource-service, 2 orchestrators × ${perOrchestrator}`);
      const system = await startSystem({ ...ctx, llm, perOrchestrator, label: mode, extraEnv });
      const spansBefore = (await otlp.count()).spans;
      const first = rows.length;
      try {
        // Connections, templates, JIT: not counted. One goal per slot, so that every worker of both orchestrators gets
        // one (each waits on its own pull of one message): a single goal warmed one orchestrator and left the other to
        // compile its templates and schemas during the measured run.
        const warm = await Promise.all(
          Array.from({ length: 2 * perOrchestrator }, (_, i) => system.post({ goal: `warm up ${i}` })),
        );
        await Promise.all(warm.map((w) => ends.finished(w.goalId, 120_000)));
        await allAcked(nc);
        for (const goals of opts.goals) {
          // Each count runs `goalRuns` times on the same services; the row is the median run (by total time), and the
          // total of every run is shown beside it: one run of a burst is one sample, which a pause of the machine moves.
          const runs = [];
          for (let run = 1; run <= opts.goalRuns; run++) {
            log(
              `(4) ${goals} concurrent goals, tracing ${mode}, model latency ${opts.llmMs} ms per call, ` +
                `run ${run} of ${opts.goalRuns}`,
            );
            runs.push(
              await runGoals({
                goals,
                post: system.post,
                ends,
                llm,
                served,
                opts,
                slots: 2 * perOrchestrator,
                monitorUrl: ctx.monitorUrl,
                nc,
                log,
                // The bench's own process: the scripted model server and the REST client (part of the measurement).
                pids: { ...system.pids, 'nats-server': ctx.natsPid(), 'bench (model, client)': process.pid },
              }),
            );
          }
          const median = [...runs].sort((a, b) => a.totalMs - b.totalMs)[Math.floor((runs.length - 1) / 2)];
          const r = { ...median, runsMs: runs.map((x) => x.totalMs) };
          results.goals.push({ ...r, tracing: mode, llmMs: opts.llmMs, perOrchestrator });
          rows.push({ ...r, mode });
        }
      } finally {
        await system.stop(); // the services flush their spans as they stop
      }
      const spans = (await otlp.count()).spans - spansBefore;
      for (const row of rows.slice(first)) row.spans = spans;
    }
  } finally {
    ends.close();
    await llm.close();
  }
  const offOf = (goals) => rows.find((r) => r.goals === goals && r.mode === 'off');
  tables.push(
    `### (4) Concurrent goals, model latency ${opts.llmMs} ms per call, 2 orchestrators × ${perOrchestrator} goals at once\n\n` +
      markdownTable(
        [
          'goals',
          'tracing',
          'completed',
          'model calls/goal',
          'total ms',
          'every run, ms',
          'ideal ms',
          'total / ideal',
          'vs tracing off',
          'orchestrator messages/goal',
          'p50 goal ms',
          'p99 goal ms',
        ],
        rows.map((r) => [
          String(r.goals),
          r.mode === 'on' ? `on (${r.spans} spans exported in all)` : 'off',
          String(r.completed),
          r.callsPerGoal.toFixed(1),
          ms(r.totalMs),
          r.runsMs.map(ms).join(', '),
          ms(r.idealMs),
          ratio(r.totalMs, r.idealMs),
          r.mode === 'off' ? '1×' : ratio(r.totalMs, offOf(r.goals)?.totalMs),
          r.messagesPerGoal.toFixed(1),
          ms(r.perGoal.p50),
          ms(r.perGoal.p99),
        ]),
      ) +
      `\n\nIdeal: ⌈goals ÷ ${2 * perOrchestrator} slots⌉ × model calls per goal × ${opts.llmMs} ms (latency-bound: every ` +
      'goal at once as far as the slots allow, nothing but model calls). Measured from the first submission to the ' +
      `last final trace event, submissions through the gateway included; each row is the median of ${opts.goalRuns} ` +
      "runs on the same services (every run's total beside it; the CPU and timeline tables are of that run). Orchestrator messages per goal: what the " +
      'orchestrators sent to NATS during the run (every request, publish and ack; NATS monitoring), divided by the goals: ' +
      'the fixed cost of a goal in round trips, which the load of the machine does not change.',
  );
  tables.push(cpuTable(rows));
  tables.push(timelineTable(rows));
}

/** When the goals of each row were accepted, reached the model for each call, and ended. */
function timelineTable(rows) {
  const body = rows.flatMap((r) =>
    r.timeline.map((t) => [String(r.goals), r.mode, t.what, ms(t.min), ms(t.p50), ms(t.max)]),
  );
  return (
    '### (4c) Where the time goes: ms after the first submission\n\n' +
    markdownTable(['goals', 'tracing', 'event', 'first', 'p50', 'last'], body) +
    '\n\nAccepted: the 202 reached the client. Model call n: the request reached the scripted model (its ' +
    'latency starts then). With nothing but model calls, every goal would make call 1 at 0 ms and end at the ideal; ' +
    "the gap of the last goal's first call is the cost of accepting and starting a burst of goals, the growth from " +
    'one call to the next the cost of a step.'
  );
}

/** The CPU time per goal of every process (the same names in every row), and their sum. */
function cpuTable(rows) {
  const names = Object.keys(rows[0]?.cpuMsPerGoal ?? {});
  const sum = (r) => Object.values(r.cpuMsPerGoal).reduce((a, b) => a + b, 0);
  return (
    '### (4b) CPU time per goal, by process\n\n' +
    markdownTable(
      ['goals', 'tracing', ...names, 'all'],
      rows.map((r) => [
        String(r.goals),
        r.mode,
        ...names.map((name) => ms(r.cpuMsPerGoal[name])),
        ms(sum(r)),
      ]),
    ) +
    '\n\nCPU milliseconds (user + system, every thread, from /proc) each process spent from the first submission ' +
    'until every goal was acked, divided by the goals. Unlike the wall time, it hardly moves with the load of the ' +
    'machine: it is what a goal costs. With 2 cores, N goals at once take at least N × all ÷ 2 ms of CPU.'
  );
}
