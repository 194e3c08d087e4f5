#!/usr/bin/env node
// `npm start`: runs the whole system on this machine.
// 1. NATS: NATS_URL if something listens there; else `nats-server -js` from PATH with its data in the data folder;
//    else stop with a message naming how to get one.
// 2. Builds the workspace (incremental `tsc -b`), then starts the four services as separate processes
//    (NOVELRAG_TOOL_RUNNERS replicas of the tool-runner), waits until each answers its NATS health probe, prints the URLs.
// 3. Ctrl-C (or SIGTERM) stops everything cleanly: services first (graceful), then the NATS server it started.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureEnv, root, bin } from './ensure-env.mjs';

ensureEnv(import.meta.url);

const env = { ...process.env };
// Local use: without API keys the gateway runs with authentication explicitly disabled (and says so at startup).
const authDisabled = !env.NOVELRAG_API_KEYS && env.NOVELRAG_AUTH_DISABLED === undefined;
if (authDisabled) env.NOVELRAG_AUTH_DISABLED = 'true';
// LanceDB's native logger warns on every search by default; keep its errors only.
env.LANCEDB_LOG ??= 'error';
const natsUrl = env.NATS_URL ?? 'nats://127.0.0.1:4222';
const dataDir = path.resolve(root, env.NOVELRAG_DATA_DIR ?? 'data');
const logDir = path.join(dataDir, 'logs');
const replicas = Number(env.NOVELRAG_TOOL_RUNNERS ?? '2');
const port = Number(env.PORT ?? '8080');
const streamLogs = env.NOVELRAG_LOGS === 'inherit';
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 16)
  fail('NOVELRAG_TOOL_RUNNERS must be an integer 1..16');
if (!Number.isInteger(port) || port < 0 || port > 65535) fail('PORT must be an integer 0..65535');
mkdirSync(logDir, { recursive: true });

const children = [];
let stopping = false;

function fail(message) {
  console.error(`[novelrag] ${message}`);
  process.exit(1);
}

function hostPort(url) {
  const u = new URL(url.includes('://') ? url : `nats://${url}`);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || 4222) };
}

function reachable({ host, port: p }, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: p });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

async function ensureNats() {
  const hp = hostPort(natsUrl);
  if (await reachable(hp)) {
    console.log(`[novelrag] NATS: using ${natsUrl}`);
    return;
  }
  const server = which('nats-server');
  if (!server) {
    fail(
      `nothing listens at ${natsUrl} and nats-server is not on PATH.\n` +
        '  Get one with `apt-get install nats-server` (Debian/Ubuntu), `brew install nats-server`,\n' +
        '  or `docker compose up -d nats`, or point NATS_URL at a running server (JetStream enabled).',
    );
  }
  const storeDir = path.join(dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  console.log(`[novelrag] NATS: starting ${server} -js on ${hp.host}:${hp.port} (data in ${storeDir})`);
  const child = spawn(server, ['-a', hp.host, '-p', String(hp.port), '-js', '-sd', storeDir], {
    stdio: ['ignore', 'ignore', createWriteStream(path.join(logDir, 'nats-server.log'))],
  });
  children.push({ name: 'nats-server', child, last: true });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await reachable(hp, 300)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`nats-server did not accept connections within 10 s (see ${path.join(logDir, 'nats-server.log')})`);
}

function build() {
  console.log('[novelrag] building (incremental tsc -b)…');
  const r = spawnSync(bin('tsc'), ['-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) fail('build failed');
}

function startService(app, index) {
  const name = index === undefined ? app : `${app}-${index + 1}`;
  const main = path.join(root, 'apps', app, 'dist', 'main.js');
  if (!existsSync(main)) fail(`${main} is missing after the build`);
  const out = streamLogs ? 'inherit' : createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [main], {
    cwd: root,
    env: { ...env, NATS_URL: natsUrl, NOVELRAG_INSTANCE_ID: name, PORT: String(port) },
    stdio: ['ignore', streamLogs ? 'inherit' : 'pipe', streamLogs ? 'inherit' : 'pipe'],
  });
  if (!streamLogs) {
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(
        `[novelrag] ${name} exited (${code ?? signal}); see ${path.join(logDir, `${name}.log`)}. Stopping.`,
      );
      void shutdown(1);
    }
  });
  children.push({ name, app, child, last: false });
}

async function waitHealthy(services) {
  const { connect } = await import('@nats-io/transport-node');
  const { Subjects } = await import(path.join(root, 'libs/contracts/dist/index.js'));
  const nc = await connect({ servers: natsUrl, name: 'novelrag-launcher', timeout: 5000 });
  try {
    const deadline = Date.now() + 60_000;
    for (const { app, name } of services) {
      for (;;) {
        try {
          const reply = await nc.request(Subjects.instanceHealth(app, name), '{}', { timeout: 1000 });
          const health = reply.json();
          if (!health.ok || !health.data?.ok)
            throw new Error(JSON.stringify(health.data?.checks ?? health.error));
          console.log(`[novelrag] ${name.padEnd(20)} ready`);
          break;
        } catch (err) {
          if (Date.now() > deadline)
            fail(`${name} did not answer its health probe within 60 s (${err.message})`);
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    }
  } finally {
    await nc.close();
  }
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  console.log('\n[novelrag] stopping…');
  const stopGroup = async (group) => {
    await Promise.all(
      group.map(
        ({ child }) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  await stopGroup(children.filter((c) => !c.last));
  await stopGroup(children.filter((c) => c.last));
  console.log('[novelrag] stopped');
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

await ensureNats();
build();
startService('resource-service');
for (let i = 0; i < replicas; i++) startService('tool-runner', i);
startService('orchestrator');
startService('gateway');
await waitHealthy(children.filter((c) => c.app));
console.log(`
[novelrag] NovelRAG is running.
  REST API      http://127.0.0.1:${port}/v1
  Health        http://127.0.0.1:${port}/health/ready
  NATS          ${natsUrl}
  Logs          ${streamLogs ? 'this terminal' : logDir}
  API docs      http://127.0.0.1:${port}/docs
  Auth          ${env.NOVELRAG_AUTH_DISABLED === 'true' ? 'disabled (local use; set NOVELRAG_API_KEYS to require Bearer keys)' : 'Bearer API keys'}
  Store         ${env.QDRANT_URL ? `Qdrant at ${env.QDRANT_URL}` : `embedded (LanceDB) in ${path.join(dataDir, 'store')}`}
  Model         ${env.OPENAI_API_KEY || env.OPENAI_BASE_URL ? `OpenAI-compatible at ${env.OPENAI_BASE_URL ?? 'api.openai.com'}` : 'none configured (offline: scripted model only)'}
Press Ctrl-C to stop.`);
