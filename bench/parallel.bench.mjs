#!/usr/bin/env node
// Parallel tool calls (issue 13): one assistant step that needs two independent 500 ms lookups, on a private
// nats-server started here. The assistant agent kind runs with a scripted model (its calls answer at once), and its
// tool calls go through the orchestrator's RemoteToolExecutor to two tools hosted by a ToolHost (libs/tool-kit) that
// each take --tool-ms (default 500 ms):
//   parallel:   one thinking round plans both calls; they run at once (the assistant's tool_calling state);
//   sequential: the baseline, one call per thinking round (what a step costs when only the first call is taken).
// Prints the median and spread of the whole pursuit for each, and parallel / sequential (ideally 0.5).
//
//   node bench/parallel.bench.mjs [--runs 7] [--tool-ms 500]
// Needs the compiled workspace (`npm run bench` builds it). Writes bench-results/parallel-<timestamp>.{json,md}.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createInfra } from './lib/infra.mjs';
import { machine, markdownTable, ms, positiveInts, ratio, summarize } from './lib/report.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { ToolHost, defineTool } = require(path.join(root, 'libs/tool-kit/dist/index.js'));
const { MicroServiceNames } = require(path.join(root, 'libs/contracts/dist/index.js'));
const { fakeTool } = require(path.join(root, 'libs/agenturn/dist/testing/index.js'));
const { RemoteToolExecutor } = require(
  path.join(root, 'apps/orchestrator/dist/tools/remote-tool-executor.js'),
);
const { ClaimWatch } = require(path.join(root, 'apps/orchestrator/dist/tools/claim-watch.js'));
const { answer, input, startAssistant, thinkAnswer, thinkCalls } = require(
  path.join(root, 'apps/orchestrator/dist/agents/assistant/test-support.js'),
);

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: false,
  options: { runs: { type: 'string' }, 'tool-ms': { type: 'string' } },
});
const int = positiveInts(values);
const opts = { runs: int('runs', 7), toolMs: int('tool-ms', 500) };
const TOOLS = ['lookup_a', 'lookup_b'];

const { tmp, children, log, startNatsServer } = createInfra(root);
let host;
let nc;
try {
  const nats = await startNatsServer();
  nc = nats.nc;
  host = new ToolHost({
    connection: nc,
    serviceName: MicroServiceNames.toolService('parallel'),
    version: '1.0.0',
    instanceId: 'parallel-bench',
    tools: TOOLS.map((name) =>
      defineTool({
        name,
        description: `An independent lookup that takes ${opts.toolMs} ms (benchmark)`,
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        timeoutMs: 60_000,
        hints: { readOnly: true, idempotent: true },
        handler: async (params) => {
          await new Promise((resolve) => setTimeout(resolve, opts.toolMs));
          return `${name}: ${String(params.city)} is fine`;
        },
      }),
    ),
  });
  await host.start();

  const described = TOOLS.map((name) =>
    fakeTool({ name, inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }),
  );
  const scripts = {
    parallel: () => [
      thinkCalls(['lookup_a', 'look up A'], ['lookup_b', 'look up B']),
      input('lookup_a', { city: 'Beijing' }),
      input('lookup_b', { city: 'Shanghai' }),
      thinkAnswer(),
      ...answer('Both are fine.'),
    ],
    sequential: () => [
      thinkCalls(['lookup_a', 'look up A']),
      input('lookup_a', { city: 'Beijing' }),
      thinkCalls(['lookup_b', 'look up B']),
      input('lookup_b', { city: 'Shanghai' }),
      thinkAnswer(),
      ...answer('Both are fine.'),
    ],
  };

  let goal = 0;
  /** One assistant pursuit over the bus; its wall time in ms. */
  const pursue = async (mode) => {
    const executor = new RemoteToolExecutor(nc, {
      goalId: `g-parallel-${mode}-${(goal += 1)}`,
      firstStep: 0,
      maxAttempts: 1,
      claimWatch: new ClaimWatch(nc),
    });
    const h = startAssistant({ tools: described, script: scripts[mode](), executor });
    const started = process.hrtime.bigint();
    const outcome = await h.pursue();
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (outcome.status !== 'completed') throw new Error(`${mode} pursuit ended ${outcome.status}`);
    const calls = outcome.executedSteps.filter((s) => s.status === 'success').length;
    if (calls !== 2) throw new Error(`${mode} pursuit ran ${calls} successful calls, expected 2`);
    return elapsed;
  };

  log('warming up');
  await pursue('parallel');
  await pursue('sequential');
  const samples = { parallel: [], sequential: [] };
  // Interleaved, so load changes on the machine hit both alike.
  for (let i = 0; i < opts.runs; i++)
    for (const mode of ['parallel', 'sequential']) samples[mode].push(await pursue(mode));
  const parallel = { ...summarize(samples.parallel), min: Math.min(...samples.parallel) };
  const sequential = { ...summarize(samples.sequential), min: Math.min(...samples.sequential) };
  const results = {
    machine: machine(),
    options: opts,
    at: new Date().toISOString(),
    parallel,
    sequential,
    ratio: parallel.p50 / sequential.p50,
  };
  const table = markdownTable(
    ['one step with two independent tools', 'p50', 'min', 'max', 'vs sequential'],
    [
      [
        'parallel (one round, both at once)',
        ms(parallel.p50),
        ms(parallel.min),
        ms(parallel.max),
        ratio(parallel.p50, sequential.p50),
      ],
      [
        'sequential baseline (one call per round)',
        ms(sequential.p50),
        ms(sequential.min),
        ms(sequential.max),
        '1.00×',
      ],
    ],
  );
  console.log(
    `\nTwo ${opts.toolMs} ms tools, ${opts.runs} runs each (assistant pursuit wall time, scripted model, real NATS):\n`,
  );
  console.log(table);
  console.log(
    `\nparallel / sequential = ${results.ratio.toFixed(2)} (ideal 0.50; ${opts.toolMs} ms = one tool's time)`,
  );
  const dir = path.join(root, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const stamp = results.at.replace(/[:.]/g, '-');
  writeFileSync(path.join(dir, `parallel-${stamp}.json`), JSON.stringify(results, null, 2));
  writeFileSync(path.join(dir, `parallel-${stamp}.md`), `${table}\n`);
} finally {
  await host?.stop(1_000);
  await nc?.close();
  for (const child of children) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
