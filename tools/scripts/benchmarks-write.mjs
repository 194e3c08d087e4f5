#!/usr/bin/env node
// `npm run benchmarks:write` (or `npm run bench -- --write-benchmarks`, after the run): assembles BENCHMARKS.md from
// the benchmarks' own markdown in bench-results/ (gitignored; every run stays there): the fixed head below (how to
// run them, how to read them), then for each benchmark its newest complete output, `bench-results/latest-<name>.md`
// (or, for a benchmark that writes no latest file, its newest `<name>-<timestamp>.md`). Each of those carries its
// command, start time, machine and load, and its targets beside the baselines of the same run. A benchmark without
// output here keeps the section the current BENCHMARKS.md has for it (generated from an earlier run, which carries its
// own date and command: bench-results/ is not in the repository, so a fresh checkout has none), else is listed as not
// run. Nothing in BENCHMARKS.md is written by hand.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(root, 'bench-results');
const BENCHES = [
  ['system', 'Tool dispatch, tool throughput, goal acceptance, concurrent goals, tracing off and on'],
  ['resources', 'Resource stores (search, segments, inserts)'],
  ['dashboard', 'Dashboard first render and update latency'],
  ['parallel', 'Two independent 500 ms tools in one step, at once vs one per round'],
  ['takeover', 'Takeover after kill -9 of the orchestrator holding a goal'],
];

const HEAD = `# Benchmarks

This file is generated: \`npm run bench -- --write-benchmarks\` runs the benchmarks and writes it, \`npm run
benchmarks:write\` writes it from the newest output in \`bench-results/\` (gitignored, where every run is kept:
\`<benchmark>-<timestamp>.{json,md}\`). Do not edit it by hand.

## How to run them

\`\`\`sh
npm run bench                                             # every benchmark with the defaults
npm run bench -- --write-benchmarks                       # the same, then BENCHMARKS.md from its output
BENCH_ONLY=system npm run bench -- --goals 100,1000       # 100 and 1000 concurrent goals (and everything else of system)
BENCH_ONLY=system npm run bench -- --calls 5000 --llm-ms 500 --concurrency 128 --tracing off
BENCH_ONLY=system npm run bench -- --only dispatch,throughput      # a subset: dispatch,throughput,accept,goals
BENCH_ONLY=resources npm run bench -- --sizes 10000,100000 --stores memory,lancedb   # the search targets
QDRANT_URL=http://127.0.0.1:6333 BENCH_ONLY=resources npm run bench   # adds Qdrant to the store benchmark
BENCH_ONLY=resources npm run bench -- --sizes 1000000 --stores lancedb   # 1M elements: the long run (over 30 min here)
BENCH_ONLY=parallel npm run bench                         # two 500 ms tools in one step vs one per round
BENCH_ONLY=takeover npm run bench                         # kill -9 trials: takeover p50/p99 vs the old lease settings
\`\`\`

\`npm run bench\` builds the workspace and runs every \`bench/*.bench.mjs\` in turn. Each starts its own infrastructure
(a private \`nats-server -js\` on a free port, services from their \`dist/\`), so it needs \`nats-server\` on PATH and
nothing else running. A partial run (\`--only\`) does not replace the figures below.

## How to read them

Each benchmark measures its baseline in the same run: raw NATS request-reply for tool dispatch, the acceptance
without HTTP for the gateway, the latency-bound ideal for concurrent goals, tracing off for tracing on, raw LanceDB
queries and the in-memory store for the resource stores. **Compare the ratios to those baselines, not the absolute
figures**: on a shared machine the absolute figures move with the load (given at the start and the end of each run),
the ratios much less. A ratio that changes between two runs of different code means the code changed the cost.
`;

/** The newest output of `name`: its latest file, else its newest timestamped markdown; undefined when none. */
function newestOutput(name) {
  if (!existsSync(dir)) return undefined;
  const latest = path.join(dir, `latest-${name}.md`);
  if (existsSync(latest)) return latest;
  const runs = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && f.endsWith('.md'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return runs[0];
}

/** Headings of a benchmark's output one level down, so they sit under the file's own sections. */
function nested(markdown) {
  return markdown.trim().replace(/^(#{2,5}) /gm, (_m, hashes) => `${hashes}# `);
}

/** The body of a section of the current BENCHMARKS.md, when it holds a run's output (not "Not run yet"). */
function earlierSection(heading) {
  const file = path.join(root, 'BENCHMARKS.md');
  if (!existsSync(file)) return undefined;
  const sections = readFileSync(file, 'utf8').split(/^(?=## )/m);
  const body = sections
    .find((section) => section.startsWith(`${heading}\n`))
    ?.slice(heading.length)
    .trim();
  return body && !body.startsWith('Not run yet') ? body : undefined;
}

export function benchmarksMarkdown() {
  const sections = BENCHES.map(([name, what]) => {
    const heading = `## ${what} (\`bench/${name}.bench.mjs\`)`;
    const file = newestOutput(name);
    const body = file
      ? `${nested(readFileSync(file, 'utf8'))}\n\n(From \`bench-results/${path.basename(file)}\`.)`
      : (earlierSection(heading) ??
        `Not run yet: \`BENCH_ONLY=${name} npm run bench -- --write-benchmarks\`.`);
    return `${heading}\n\n${body}`;
  });
  return `${HEAD}\n${sections.join('\n\n')}\n`;
}

/** Writes BENCHMARKS.md, formatted as the repository formats its markdown (Prettier). */
export async function writeBenchmarks() {
  const file = path.join(root, 'BENCHMARKS.md');
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(benchmarksMarkdown(), { ...config, filepath: file }));
  console.log('[novelrag] written: BENCHMARKS.md');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await writeBenchmarks();
