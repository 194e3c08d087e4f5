// Makes `npm start` and `npm test` work on a fresh clone with any Node on PATH: installs the project's own
// dependencies when they are missing, then re-runs the calling script on the Node 24 that the `node` devDependency
// ships (the machine's Node may be older; NestJS 12 and Jest's ESM support need >= 24.9).
import { existsSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = (name) => path.join(root, 'node_modules', '.bin', name);

export function nodeIsRecentEnough(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  return major > 24 || (major === 24 && minor >= 9);
}

/**
 * Resolves when running on Node >= 24.9 with dependencies installed; otherwise installs and/or re-runs the script on
 * the project's Node 24 and never resolves (this process exits with the child's status). Ctrl-C reaches the child from
 * the terminal (same process group) and this process waits for it to finish stopping; SIGTERM and SIGHUP sent to this
 * process alone are passed on.
 */
export async function ensureEnv(scriptUrl) {
  if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
    console.log('[novelrag] dependencies are not installed: running `npm ci` first');
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  if (nodeIsRecentEnough()) return;
  const node24 = bin('node');
  if (!existsSync(node24)) {
    console.error(
      `[novelrag] Node >= 24.9 is required (found ${process.version}) and node_modules/.bin/node is missing.`,
    );
    console.error('Install Node 24 or run `npm ci` so that the node@24 devDependency provides it.');
    process.exit(1);
  }
  const child = spawn(node24, [...process.execArgv, fileURLToPath(scriptUrl), ...process.argv.slice(2)], {
    cwd: process.cwd(),
    stdio: 'inherit',
  });
  process.on('SIGINT', () => {}); // the child got it too; exit when it has stopped
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  await new Promise(() => {
    child.once('error', (err) => {
      console.error(`[novelrag] could not start ${node24}: ${err.message}`);
      process.exit(1);
    });
    child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}
