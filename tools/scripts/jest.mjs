#!/usr/bin/env node
// Runs Jest on Node 24 with the ESM flag NestJS 12 needs; arguments are passed through (paths, --selectProjects ...).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const r = spawnSync(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    path.join(root, 'node_modules/.bin/jest'),
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: { LANCEDB_LOG: 'error', ...process.env } },
);
process.exit(r.status ?? 1);
