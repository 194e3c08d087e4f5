#!/usr/bin/env node
// `npm run schemas:export`: writes the JSON Schema of every bus message to libs/contracts/json-schema/<Name>.json,
// for third parties (tools in other languages, dashboards). Builds libs/contracts first.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ensureEnv, root, bin } from './ensure-env.mjs';

await ensureEnv(import.meta.url);
const build = spawnSync(bin('tsc'), ['-b', 'libs/contracts/tsconfig.lib.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const require = createRequire(import.meta.url);
const { exportJsonSchemas } = require(path.join(root, 'libs/contracts/dist/index.js'));
const outDir = path.join(root, 'libs/contracts/json-schema');
mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir)) if (f.endsWith('.json')) rmSync(path.join(outDir, f));
const schemas = exportJsonSchemas();
for (const [name, schema] of Object.entries(schemas)) {
  writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(schema, null, 2) + '\n');
}
console.log(`wrote ${Object.keys(schemas).length} JSON Schemas to ${path.relative(root, outDir)}/`);
