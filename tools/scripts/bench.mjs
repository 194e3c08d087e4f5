#!/usr/bin/env node
// `npm run bench`: builds the workspace (incremental `tsc -b`), then runs every bench/*.bench.mjs in turn on the
// project's Node 24, passing the arguments through (e.g. `npm run bench -- --sizes 10000,100000`); each benchmark
// takes the options it knows. bench/resources.bench.mjs: the resource stores; bench/system.bench.mjs: tool dispatch,
// tool throughput, goal acceptance, concurrent goals; bench/parallel.bench.mjs: two 500 ms tools in one assistant step
// at once vs one per round; bench/dashboard.bench.mjs: the dashboard's render and update times in Chromium;
// bench/takeover.bench.mjs: takeover p50/p99 after kill -9 of an orchestrator. BENCH_ONLY=resources (or system,
// parallel, dashboard, takeover) runs one. Results land in bench-results/ (gitignored). `--write-benchmarks` then
// regenerates BENCHMARKS.md from the newest output of each benchmark (tools/scripts/benchmarks-write.mjs; alone:
// `npm run benchmarks:write`).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ensureEnv, root, bin } from './ensure-env.mjs';

const writeBenchmarks = process.argv.includes('--write-benchmarks');
const args = process.argv.slice(2).filter((arg) => arg !== '--write-benchmarks');

await ensureEnv(import.meta.url);

console.log('[novelrag] building (incremental tsc -b)…');
const build = spawnSync(bin('tsc'), ['-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('[novelrag] build failed');
  process.exit(build.status ?? 1);
}
const ui = spawnSync(process.execPath, [path.join(root, 'tools/scripts/build-dashboard.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (ui.status !== 0) process.exit(ui.status ?? 1);

const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const benches = readdirSync(path.join(root, 'bench'))
  .filter((file) => file.endsWith('.bench.mjs'))
  .filter((file) => !only || only.includes(file.replace(/\.bench\.mjs$/, '')))
  .sort();
if (benches.length === 0) {
  console.error(`[novelrag] no benchmark matches${only ? ` BENCH_ONLY=${only.join(',')}` : ''}`);
  process.exit(1);
}

let failed = false;
for (const file of benches) {
  console.log(`\n=== bench/${file} ===`);
  const r = spawnSync(process.execPath, [path.join(root, 'bench', file), ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.error(`bench/${file} failed (exit ${r.status ?? r.signal})`);
    failed = true;
  }
}
if (writeBenchmarks) await (await import('./benchmarks-write.mjs')).writeBenchmarks();
process.exit(failed ? 1 : 0);
