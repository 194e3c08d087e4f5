import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../../..');

export interface StartedProcess {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** SIGTERM (or the given signal) and wait for the exit; SIGKILL after 15 s. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves when the process has exited (any reason). */
  readonly exited: Promise<void>;
}

/**
 * Runs a built `dist/main.js` (run `npm run build` first) as an OS process, then polls `ready` (bounded) until it says
 * the process serves; fails with the process output when it exits or never gets ready.
 */
export async function startProcess(
  relativeMain: string,
  env: Record<string, string>,
  ready: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<StartedProcess> {
  const main = path.join(ROOT, relativeMain);
  if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first`);
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: { ...process.env, LANCEDB_LOG: 'error', NOVELRAG_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${relativeMain} exited with ${child.exitCode}:\n${output}`);
    if (await ready().catch(() => false)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${relativeMain} not ready within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    output: () => output,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill(signal);
      await exited;
      clearTimeout(force);
    },
  };
}
