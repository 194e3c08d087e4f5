// The Node flags a service asks to be started with: `novelrag.nodeFlags` in its apps/<app>/package.json (none when
// absent). Every way a service is started reads them here (tools/scripts/start.mjs, the benchmarks' bench/lib/infra.mjs)
// or from the same field (the Dockerfile), so a flag is set in one place. They are process flags on purpose: V8 reads
// its GC flags when the process starts, and most of them are not allowed in NODE_OPTIONS.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * One `--flag` or `--flag=value`, with nothing the Dockerfile's unquoted `$(cat /app/node-flags)` would split or expand
 * (spaces, quotes, `$`, glob characters), so the container gets the very flags the other starters pass; not a bare `--`,
 * which ends Node's options.
 */
const FLAG = /^--[A-Za-z0-9][\w-]*(?:=[\w.,:/@%+=-]*)?$/;

/** `novelrag.nodeFlags` of apps/<app>/package.json under `root`: an array of strings, [] when the field is absent. */
export function nodeFlagsOf(root, app) {
  const manifest = JSON.parse(readFileSync(path.join(root, 'apps', app, 'package.json'), 'utf8'));
  const flags = manifest.novelrag?.nodeFlags ?? [];
  if (!Array.isArray(flags) || !flags.every((f) => typeof f === 'string' && FLAG.test(f))) {
    throw new Error(`apps/${app}/package.json: novelrag.nodeFlags must be an array of --flags`);
  }
  return flags;
}
