#!/usr/bin/env node
// `npm run docs:generate`: writes the generated documents (docs/configuration.md from the zod env schemas,
// docs/bus-api.md from the contracts) by running tools/docs/generate.ts from the TypeScript sources, compiled in
// memory with SWC as Jest does, so no build is needed. `--check` only reports drift (exit 1).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ensureEnv, root } from './ensure-env.mjs';
import { requireTs } from './ts-loader.mjs';

await ensureEnv(import.meta.url);
const { generatedDocs } = requireTs('tools/docs/generate.ts');
const check = process.argv.includes('--check');
let drift = false;
for (const [file, text] of Object.entries(await generatedDocs())) {
  const target = path.join(root, file);
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  if (check) {
    console.error(`${file} is out of date (run \`npm run docs:generate\`)`);
    drift = true;
    continue;
  }
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${file}`);
}
process.exit(drift ? 1 : 0);
