#!/usr/bin/env node
// `npm run docs:generate`: writes the generated documents (docs/configuration.md from the zod env schemas,
// docs/bus-api.md from the contracts) by running tools/docs/generate.ts from the TypeScript sources, compiled in
// memory with SWC as Jest does, so no build is needed. `--check` only reports drift (exit 1).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ensureEnv, root } from './ensure-env.mjs';

await ensureEnv(import.meta.url);
const require = createRequire(import.meta.url);
const Module = require('node:module');
const swc = require('@swc/core');

// Workspace libs resolve to their sources (as tsconfig paths and Jest's moduleNameMapper do), .ts through SWC.
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@novelrag\/(contracts|agenturn|llm|bus|testkit|tool-kit)(\/testing)?$/.exec(request);
  const target = lib ? path.join(root, 'libs', lib[1], 'src', lib[2] ? 'testing' : '', 'index.ts') : request;
  return resolve.call(this, target, ...rest);
};
// The same SWC options as the Jest transform.
const [, swcOptions] = require(path.join(root, 'jest.config.cjs')).projects[0].transform['^.+\\.ts$'];
Module._extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { ...swcOptions, filename });
  module._compile(code, filename);
};

const { generatedDocs } = require(path.join(root, 'tools/docs/generate.ts'));
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
