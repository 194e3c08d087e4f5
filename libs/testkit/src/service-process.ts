import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Subjects, type ServiceName } from '@novelrag/contracts';
import { REPO_ROOT } from './repo-root';

/** Builds the services once (incremental `tsc -b`); e2e tests run them from their dist like `npm start` does. */
export function buildServices(): void {
  const r = spawnSync(path.join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-b', 'tsconfig.build.json'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
}

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `apps/<app>/dist/main.js` as an OS process and waits (bounded) until its instance answers health. */
export async function startServiceProcess(
  app: ServiceName,
  instanceId: string,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ServiceProcess> {
  const main = path.join(REPO_ROOT, 'apps', app, 'dist', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: build first`);
  const child = spawn(process.execPath, [main], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      LANCEDB_LOG: 'error',
      // info: the start and stop of each service (with the signal that stopped it) for failure reports.
      NOVELRAG_LOG_LEVEL: 'info',
      ...env,
      NOVELRAG_INSTANCE_ID: instanceId,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  // The health probe uses the service's own credentials when the server requires them.
  const nc = await connect({
    servers: env.NATS_URL,
    ...(env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD } : {}),
  });
  try {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${output}`);
      try {
        // The reply envelope's `ok` only says the request was served; the report's own `ok` says ready (e.g. the
        // gateway's `http` check stays false until it accepts connections).
        const reply = await nc.request(Subjects.instanceHealth(app, instanceId), '{}', { timeout: 500 });
        const body = reply.json() as { ok?: boolean; data?: { ok?: boolean; checks?: unknown } };
        if (body.ok === true && body.data?.ok === true) break;
        last = JSON.stringify(body.data?.checks ?? body);
      } catch (err) {
        last = String(err);
      }
      if (Date.now() > deadline)
        throw new Error(`${app} not healthy within ${timeoutMs} ms (${last}):\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    // Never leave a half-started service behind (its pipes would also keep Jest from exiting).
    if (child.exitCode === null) child.kill('SIGKILL');
    throw err;
  } finally {
    await nc.close();
  }
  return {
    name: instanceId,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill(signal);
      }),
  };
}
