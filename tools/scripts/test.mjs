#!/usr/bin/env node
// The README's test command: lint, typecheck, build (services and dashboard), then every Jest tier (unit, integration,
// e2e) in one run.
// Extra arguments go to Jest (e.g. `npm test -- --selectProjects unit`). Set SKIP_STATIC=1 to run only Jest.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureEnv, root, bin } from './ensure-env.mjs';

await ensureEnv(import.meta.url);
process.env.LANCEDB_LOG ??= 'error'; // LanceDB's native logger warns on every search by default

function step(title, cmd, args, env = {}) {
  console.log(`\n=== ${title} ===`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`\n${title} failed (exit ${r.status ?? r.signal}) after ${secs}s`);
    process.exit(r.status ?? 1);
  }
  console.log(`--- ${title}: ok in ${secs}s`);
}

const jestArgs = process.argv.slice(2);
if (!process.env.SKIP_STATIC) {
  // The module-boundary lint rule reads Nx's cached project graph: compute it first.
  step('project graph', bin('nx'), ['show', 'projects'], { NX_DAEMON: 'false' });
  step('lint', bin('eslint'), ['.', '--max-warnings=0'], { NOVELRAG_LINT_GATE: '1' });
  step('format', bin('prettier'), ['--check', '.', '--log-level', 'warn']);
  step('typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  // The dashboard is browser code (DOM types, bundler resolution): its own project.
  step('typecheck dashboard', bin('tsc'), ['-p', 'apps/dashboard/tsconfig.json', '--noEmit']);
}
// Integration and e2e tests start services as OS processes from their dist/: build once, before Jest's workers start.
step('build', bin('tsc'), ['-b', 'tsconfig.build.json']);
// The dashboard the gateway serves at /ui (the browser suite drives it).
step('build dashboard', process.execPath, [path.join(root, 'tools/scripts/build-dashboard.mjs')]);
step('jest', process.execPath, [
  '--experimental-vm-modules',
  '--no-warnings=ExperimentalWarning',
  bin('jest'),
  ...jestArgs,
]);
