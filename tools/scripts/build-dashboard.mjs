#!/usr/bin/env node
// Builds the ops dashboard (apps/dashboard, Vite) into apps/dashboard/dist, which the gateway serves at /ui.
// Skipped when the build is newer than every source file (like `tsc -b`); `--force` always builds.
// Part of `npm run build`, `npm test` and `npm start`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const app = path.join(root, 'apps/dashboard');
const output = path.join(app, 'dist', 'index.html');

function newest(p) {
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(p).map((name) => newest(path.join(p, name))));
}

export function dashboardUpToDate() {
  if (!existsSync(output)) return false;
  const sources = ['src', 'index.html', 'vite.config.mjs', 'package.json'].map((f) => path.join(app, f));
  return statSync(output).mtimeMs >= Math.max(...sources.map(newest));
}

export async function buildDashboard({ force = false } = {}) {
  if (!force && dashboardUpToDate()) return false;
  const { build } = await import('vite');
  await build({ configFile: path.join(app, 'vite.config.mjs') });
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    const built = await buildDashboard({ force: process.argv.includes('--force') });
    console.log(
      built
        ? `dashboard built in ${((Date.now() - started) / 1000).toFixed(1)}s (apps/dashboard/dist)`
        : 'dashboard up to date',
    );
  } catch (err) {
    console.error(`dashboard build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
