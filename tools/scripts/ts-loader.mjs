// Lets a script require the repository's TypeScript sources without a build: workspace libs resolve to their sources
// (as tsconfig paths and Jest's moduleNameMapper do) and .ts files are compiled in memory with SWC, as Jest does.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { root } from './ensure-env.mjs';

const require = createRequire(import.meta.url);
let installed = false;

/** `require` for a .ts file of the repository (path relative to the root). */
export function requireTs(file) {
  if (!installed) {
    const Module = require('node:module');
    const swc = require('@swc/core');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      const lib =
        /^@novelrag\/(contracts|agenturn|llm|bus|testkit|tool-kit|telemetry|repository|resource-client|mcp-server)(\/testing)?$/.exec(
          request,
        );
      const target = lib
        ? path.join(root, 'libs', lib[1], 'src', lib[2] ? 'testing' : '', 'index.ts')
        : request;
      return resolve.call(this, target, ...rest);
    };
    // The same SWC options as the Jest transform.
    const [, swcOptions] = require(path.join(root, 'jest.config.cjs')).projects[0].transform['^.+\\.ts$'];
    Module._extensions['.ts'] = (module, filename) => {
      const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { ...swcOptions, filename });
      module._compile(code, filename);
    };
    installed = true;
  }
  return require(path.join(root, file));
}
