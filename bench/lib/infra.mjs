// The infrastructure of the whole-system benchmarks: a private nats-server -js and services from their dist/, as OS
// processes that the caller kills at the end (`children`), with their data in a temporary folder (`tmp`).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { nodeFlagsOf } from '../../tools/scripts/node-flags.mjs';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Node options for every service and process the benchmark starts, from `BENCH_NODE_ARGS` (space-separated), e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile each process of a run (a profile is written on graceful exit).
 */
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

export function createInfra(root) {
  // This process's NATS client works as an orchestrator's does (libs/bus connectBus): no async stack capture per
  // request (`noAsyncTraces` below) and no stack trace for the error nats-core builds at the end of every request
  // (quietRequestCancel), so the client's CPU per call in the dispatch and throughput rows, raw NATS and tool calls
  // alike, is what an orchestrator would spend.
  createRequire(import.meta.url)(path.join(root, 'libs/bus/dist/request-cancel.js')).quietRequestCancel();
  const tmp = mkdtempSync(path.join(tmpdir(), 'novelrag-bench-'));
  const children = [];
  const log = (m) => process.stderr.write(`  ${m}\n`);

  /** Spawns a process and resolves once its output contains `readyText` (bounded). */
  function startProcess(args, env, readyText, timeoutMs = 30_000) {
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      cwd: root,
      env: { ...process.env, LANCEDB_LOG: 'error', NOVELRAG_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${args.join(' ')} not ready in ${timeoutMs} ms:\n${out}`)),
        timeoutMs,
      );
      const onData = (d) => {
        out += d.toString();
        if (out.includes(readyText)) {
          clearTimeout(timer);
          resolve(child);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${out}`)));
    });
  }

  /**
   * A private nats-server -js with its store in `tmp` and its monitoring endpoint (`monitorUrl`: /connz counts each
   * client's messages). `restart()` kills it with SIGKILL and starts it again on the same
   * port over the same store (resolves once it accepts connections); `nc` reconnects without a bound, as services do.
   * `pid()` is the running server's process id.
   */
  async function startNatsServer() {
    const port = await freePort();
    const monitor = await freePort();
    const url = `nats://127.0.0.1:${port}`;
    const spawnServer = () => {
      const child = spawn(
        'nats-server',
        ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-js', '-sd', path.join(tmp, 'nats')],
        { stdio: 'ignore' },
      );
      children.push(child);
      return child;
    };
    const reachable = async (options) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          return await connect({ servers: url, timeout: 500, noAsyncTraces: true, ...options });
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    let server = spawnServer();
    const nc = await reachable({ maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const restart = async () => {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGKILL');
      await exited;
      server = spawnServer();
      await (await reachable({ reconnect: false })).close();
    };
    return { url, monitorUrl: `http://127.0.0.1:${monitor}`, nc, restart, pid: () => server.pid };
  }

  /**
   * A service from its dist, with the Node flags it is deployed with (tools/scripts/node-flags.mjs) and BENCH_NODE_ARGS,
   * ready when its instance answers the NATS health probe.
   */
  async function startService(nc, app, instance, env) {
    const args = [...nodeFlagsOf(root, app), ...nodeArgs, path.join(root, 'apps', app, 'dist', 'main.js')];
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...process.env,
        LANCEDB_LOG: 'error',
        NOVELRAG_LOG_LEVEL: 'warn',
        NOVELRAG_INSTANCE_ID: instance,
        ...env,
      },
      stdio: 'ignore',
    });
    children.push(child);
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const reply = await nc.request(`novelrag.health.${app}.${instance}`, '{}', { timeout: 500 });
        // The reply is an envelope: `ok` says the request was answered, `data.ok` that the instance is ready (the
        // gateway's HTTP port listens only then).
        if (reply.json().data?.ok) return child;
      } catch {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${app} did not start`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  return { tmp, children, log, freePort, startProcess, startNatsServer, startService };
}
