import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './repo-root';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the `novelrag` bin (from apps/cli/dist) as an OS process, bounded, and collects its output. */
export function runNovelrag(
  args: readonly string[],
  env: Record<string, string>,
  options: { timeoutMs?: number; input?: string; onStdout?: (stdoutSoFar: string) => void } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/cli/bin/novelrag.js'), ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      options.onStdout?.(stdout);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`novelrag ${args.join(' ')} did not exit within ${timeoutMs} ms:\n${stdout}\n${stderr}`),
      );
    }, timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
