// Parts (1) and (2) of bench/system.bench.mjs: tool dispatch round trip and tool throughput, against raw NATS
// request-reply in the same run. Three tools hosted by bench/lib/noop-runner.mjs exactly as the tool-runner hosts its
// tools: `BenchNoop` (read-only: no at-most-once record), `BenchNoopOnce` (no hints: claim + result record in the
// tool-results KV bucket) and `BenchSpin` (read-only, a fixed amount of CPU work per call).
import { createRequire } from 'node:module';
import path from 'node:path';
import { Kvm } from '@nats-io/kv';
import { cpuCell, markdownTable, ms, ratio, summarize, timed, withCpu } from './report.mjs';
import { startBenchTracing, tracingOffCost } from './tracing.mjs';

const require = createRequire(import.meta.url);

export async function sequential(n, fn) {
  const samples = [];
  for (let i = 0; i < n; i++) samples.push((await timed(fn)).ms);
  return summarize(samples);
}

/**
 * `total` calls of `fn`, `concurrency` at a time: calls per second and the latency of each call; with `keepSamples`,
 * also `samples`, the latency of every call in the order the calls ended.
 */
export async function concurrent(total, concurrency, fn, { keepSamples = false } = {}) {
  let next = 0;
  const samples = [];
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) {
        next += 1;
        samples.push((await timed(fn)).ms);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const result = { total, seconds, perSecond: total / seconds, latency: summarize(samples) };
  return keepSamples ? { ...result, samples } : result;
}

function executorFor(root, nc, label, tool) {
  const { RemoteToolExecutor } = require(
    path.join(root, 'apps/orchestrator/dist/tools/remote-tool-executor.js'),
  );
  const { ClaimWatch } = require(path.join(root, 'apps/orchestrator/dist/tools/claim-watch.js'));
  const { operationPlan } = require(path.join(root, 'libs/agenturn/dist/index.js'));
  // As the orchestrator builds it, dead-runner watch included.
  const executor = new RemoteToolExecutor(nc, {
    goalId: `g-bench-${label}`,
    firstStep: 0,
    maxAttempts: 1,
    claimWatch: new ClaimWatch(nc),
  });
  const plan = operationPlan(tool, {}, 'benchmark');
  // Every call with its goal's signal, as the goal executor dispatches them (cancelling the goal stops the call).
  const goal = new AbortController();
  return async () => {
    const outcome = await executor.execute(plan, {}, goal.signal);
    if (outcome.status !== 'success')
      throw new Error(`${tool} failed: ${outcome.errorCode} ${outcome.errorMessage}`);
  };
}

/** The two KV writes of an at-most-once call (create the claim, compare-and-swap the result), with nothing else. */
async function kvPair(nc) {
  const kv = await new Kvm(nc).create(`bench_kv_${process.pid}`, { history: 1 });
  let i = 0;
  return async () => {
    const key = `k${i++}`;
    const revision = await kv.create(key, '{"state":"running"}');
    await kv.update(key, '{"state":"done"}', revision);
  };
}

/** Stops a child process (SIGTERM, bounded wait, then SIGKILL). */
export async function stopChild(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** Runs (1) and/or (2); pushes markdown tables to `tables` and figures to `results`. */
export async function dispatchBench(ctx) {
  const { root, nc, natsUrl, opts, startProcess, log, results, tables } = ctx;
  const runners = [];
  const runner = async (instance, env = {}) => {
    const child = await startProcess(
      [path.join(root, 'bench/lib/noop-runner.mjs')],
      { NATS_URL: natsUrl, BENCH_INSTANCE: instance, ...env },
      'ready',
    );
    runners.push(child);
    return child;
  };
  const raw = async () => {
    await nc.request('bench.raw', '', { timeout: 10_000 });
  };
  log('starting runner-1');
  await runner('runner-1');
  const readOnly = executorFor(root, nc, 'dispatch', 'BenchNoop');
  const once = executorFor(root, nc, 'dispatch-once', 'BenchNoopOnce');
  const kv = await kvPair(nc);
  for (const warm of [raw, readOnly, once, kv]) await sequential(200, warm);
  if (opts.only.has('dispatch')) {
    log(`(1) dispatch round trip, ${opts.calls} sequential calls each`);
    const rawStats = await sequential(opts.calls, raw);
    const toolStats = await sequential(opts.calls, readOnly);
    const onceStats = await sequential(opts.calls, once);
    const kvStats = await sequential(opts.calls, kv);
    results.dispatch = { raw: rawStats, tool: toolStats, atMostOnce: onceStats, kvPair: kvStats };
    const floor = rawStats.p50 + kvStats.p50;
    const row = (path, what, s, base) => [path, what, ms(s.p50), ms(s.p99), ms(s.mean), ratio(s.p50, base)];
    tables.push(
      `### (1) Tool dispatch round trip (${opts.calls} sequential calls, one runner)\n\n` +
        markdownTable(
          ['path', 'what', 'p50 ms', 'p99 ms', 'mean ms', 'p50 vs its baseline'],
          [
            row('raw NATS', 'request-reply, no-op responder', rawStats, rawStats.p50),
            row(
              'read-only tool',
              'RemoteToolExecutor → ToolHost no-op (validation, no KV record)',
              toolStats,
              rawStats.p50,
            ),
            row('KV pair', 'create + compare-and-swap update, nothing else', kvStats, kvStats.p50),
            [
              ...row(
                'at-most-once tool',
                'the same tool without hints (KV claim + result record)',
                onceStats,
                floor,
              ).slice(0, 5),
              `${ratio(onceStats.p50, floor)} of raw + KV pair (${ms(floor)} ms)`,
            ],
          ],
        ),
    );
  }
  if (opts.only.has('throughput')) await throughputBench({ ...ctx, runner, runners, raw });
  if (opts.only.has('dispatch') && opts.tracing.includes('on')) {
    for (const child of runners.splice(0)) await stopChild(child);
    await tracingDispatch({ ...ctx, runner, raw });
  }
}

/** (2): `throughputCalls` calls, `concurrency` in flight, with 1 runner and then 2. */
async function throughputBench({ root, nc, natsPid, opts, log, results, tables, runner, runners, raw }) {
  const c = opts.concurrency;
  const spinCalls = Math.max(200, Math.floor(opts.throughputCalls / 10));
  // Each row with the CPU time per call of this process (the client), the runners and the nats-server.
  const run = (n, fn) =>
    withCpu(n, { runners: runners.map((r) => r.pid), nats: [natsPid()] }, () => concurrent(n, c, fn));
  const warmCalls = opts.throughputWarmup;
  const measure = async (label) => {
    const tag = label.replace(/\W/g, '');
    const tool = executorFor(root, nc, `tp-${tag}`, 'BenchNoop');
    const once = executorFor(root, nc, `tpo-${tag}`, 'BenchNoopOnce');
    // The first thousands of calls of a path run code V8 has not optimized yet, in this process and in a runner (the
    // tool path much longer than raw NATS: its client CPU per call falls by about a quarter over 20000 calls): each path
    // first runs a warm-up at the same concurrency, reported apart, so the rows measure the steady state.
    log(`(2) throughput, ${label}: a warm-up of ${warmCalls} calls per path at concurrency ${c}`);
    const warmTool = await run(warmCalls, tool);
    await concurrent(warmCalls, c, raw);
    await concurrent(Math.ceil(warmCalls / 4), c, once);
    log(`(2) throughput, ${opts.throughputCalls} calls at concurrency ${c}, ${label}`);
    return {
      warmTool,
      raw: await run(opts.throughputCalls, raw),
      tool: await run(opts.throughputCalls, tool),
      once: await run(opts.throughputCalls, once),
      spin: await run(spinCalls, executorFor(root, nc, `tps-${tag}`, 'BenchSpin')),
    };
  };
  const one = await measure('1 runner');
  log('starting runner-2');
  await runner('runner-2');
  const two = await measure('2 runners');
  results.throughput = { concurrency: c, one, two };
  const rows = (n, r) => [
    [
      n,
      `read-only tool, warm-up (its first ${warmCalls} calls)`,
      r.warmTool.perSecond.toFixed(0),
      ratio(r.warmTool.perSecond, r.raw.perSecond),
      cpuCell(r.warmTool.cpuUs),
    ],
    [n, 'raw NATS', r.raw.perSecond.toFixed(0), '1×', cpuCell(r.raw.cpuUs)],
    [
      n,
      'read-only tool',
      r.tool.perSecond.toFixed(0),
      ratio(r.tool.perSecond, r.raw.perSecond),
      cpuCell(r.tool.cpuUs),
    ],
    [
      n,
      'at-most-once tool',
      r.once.perSecond.toFixed(0),
      ratio(r.once.perSecond, r.raw.perSecond),
      cpuCell(r.once.cpuUs),
    ],
    [n, `CPU-bound tool (${spinCalls} calls)`, r.spin.perSecond.toFixed(0), '—', cpuCell(r.spin.cpuUs)],
  ];
  tables.push(
    `### (2) Tool throughput (${opts.throughputCalls} calls, ${c} in flight, one client process, after a warm-up of ` +
      `${warmCalls} calls per path)\n\n` +
      markdownTable(
        ['runners', 'path', 'calls/s', 'vs raw', 'CPU µs / call: client + runners + nats-server'],
        [...rows('1', one), ...rows('2', two)],
      ) +
      `\n\nCPU-bound tool, 2 runners ÷ 1 runner: ${ratio(two.spin.perSecond, one.spin.perSecond)}. CPU per call: ` +
      'what each process used during the row, divided by its calls (does not grow with the load of the machine; ' +
      'runners and nats-server read from /proc in 10 ms steps).',
  );
}

/**
 * (1) with tracing on (issue 15): this process and a runner started with OTEL_EXPORTER_OTLP_ENDPOINT (the OTLP stub)
 * export every span; raw NATS measured again beside it. Beside them, what the tracing calls cost while tracing is off.
 */
async function tracingDispatch({ root, nc, opts, log, results, tables, runner, raw, otlp }) {
  log('(1) dispatch with tracing on: starting a traced runner');
  const child = await runner('runner-traced', {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_TRACES_SAMPLER: 'always_on',
  });
  const tracing = startBenchTracing(root, otlp.endpoint);
  let rawOn;
  let toolOn;
  const spansBefore = (await otlp.count()).spans;
  try {
    const readOnly = executorFor(root, nc, 'dispatch-traced', 'BenchNoop');
    for (const warm of [raw, readOnly]) await sequential(200, warm);
    rawOn = await sequential(opts.calls, raw);
    toolOn = await sequential(opts.calls, readOnly);
    await tracing.flush();
  } finally {
    await tracing.shutdown();
    await stopChild(child);
  }
  const spans = (await otlp.count()).spans - spansBefore;
  const offCost = await tracingOffCost(root);
  const off = results.dispatch;
  results.tracingDispatch = { raw: rawOn, tool: toolOn, spans, offCost };
  const row = (mode, r, t) => [mode, ms(r.p50), ms(t.p50), ms(t.p99), ratio(t.p50, r.p50)];
  tables.push(
    `### (1b) Tool dispatch with tracing off and on (${opts.calls} sequential read-only calls each)\n\n` +
      markdownTable(
        ['tracing', 'raw NATS p50 ms', 'read-only tool p50 ms', 'p99 ms', 'p50 vs raw'],
        [row('off (no SDK)', off.raw, off.tool), row('on (OTLP to the stub)', rawOn, toolOn)],
      ) +
      `\n\nTracing on vs off, read-only tool p50 relative to raw: ${ratio(toolOn.p50 / rawOn.p50, off.tool.p50 / off.raw.p50)} ` +
      `(${spans} spans exported to the OTLP stub, a process of its own). Tracing off: the calls a dispatch makes into the tracing API (a ` +
      `client span, trace headers, trace ids) cost ${(offCost.addedNs / 1000).toFixed(2)} µs per dispatch measured ` +
      `directly (${offCost.n} times; ${ms(off.tool.p50)} ms a dispatch), i.e. nothing measurable.`,
  );
}
