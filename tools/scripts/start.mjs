#!/usr/bin/env node
// `npm start`: runs the whole system on this machine.
// 1. NATS: NATS_URL if something listens there; else `nats-server -js` from PATH with its data in the data folder;
//    else stop with a message naming how to get one.
// 2. Builds the workspace (incremental `tsc -b`) and the dashboard (served by the gateway at /ui), then starts the
//    four services as separate processes (NOVELRAG_TOOL_RUNNERS replicas of the tool-runner), waits until each
//    answers its NATS health probe, prints the URLs. With NOVELRAG_MCP_CONFIG, also the MCP bridge (docs/mcp.md).
// 3. The model: OPENAI_API_KEY / OPENAI_BASE_URL → that OpenAI-compatible provider; neither (or NOVELRAG_LLM=scripted)
//    → the SCRIPTED model (tools/demo/scripted-llm.mjs replaying NOVELRAG_SCENARIO, default tools/demo/scenario.json),
//    started here and given to the orchestrator and tool-runners as their OPENAI_BASE_URL. Said loudly at startup.
// 4. Writes data/run/launcher.json (URLs, model mode, pids) for `npm run demo`; removes it on exit.
// 5. Supervises: a process (a service or the NATS server it started) that exits unexpectedly once the system runs is
//    restarted with exponential backoff, loudly; after a crash loop (tools/scripts/supervise.mjs) it is given up, and
//    everything stops when no instance of that service is left. An exit during startup stops everything at once.
// 6. Ctrl-C (or SIGTERM) stops everything cleanly: services first (SIGTERM, SIGKILL after 10 s), then the NATS server
//    it started; a second Ctrl-C kills at once.
import { spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureEnv, root, bin } from './ensure-env.mjs';
import { nodeFlagsOf } from './node-flags.mjs';
import { RESTART_POLICY, RestartBook } from './supervise.mjs';

await ensureEnv(import.meta.url);

const env = { ...process.env };
// Local use: without API keys the gateway runs with authentication explicitly disabled (and says so at startup).
const authDisabled = !env.NOVELRAG_API_KEYS && env.NOVELRAG_AUTH_DISABLED === undefined;
if (authDisabled) env.NOVELRAG_AUTH_DISABLED = 'true';
// LanceDB's native logger warns on every search by default; keep its errors only.
env.LANCEDB_LOG ??= 'error';
const natsUrl = env.NATS_URL ?? 'nats://127.0.0.1:4222';
const dataDir = path.resolve(root, env.NOVELRAG_DATA_DIR ?? 'data');
const logDir = path.join(dataDir, 'logs');
const runFile = path.join(dataDir, 'run', 'launcher.json');
const children = [];
const replicas = Number(env.NOVELRAG_TOOL_RUNNERS ?? '2');
const port = Number(env.PORT ?? '8080');
const streamLogs = env.NOVELRAG_LOGS === 'inherit';
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 16)
  fail('NOVELRAG_TOOL_RUNNERS must be an integer 1..16');
if (!Number.isInteger(port) || port < 0 || port > 65535) fail('PORT must be an integer 0..65535');
const llmMode = env.NOVELRAG_LLM ?? (env.OPENAI_API_KEY || env.OPENAI_BASE_URL ? 'openai' : 'scripted');
if (llmMode !== 'openai' && llmMode !== 'scripted') fail('NOVELRAG_LLM must be "openai" or "scripted"');
if (llmMode === 'openai' && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL)
  fail(
    'NOVELRAG_LLM=openai needs OPENAI_API_KEY (and/or OPENAI_BASE_URL for another OpenAI-compatible server)',
  );
const scenarioFile = path.resolve(root, env.NOVELRAG_SCENARIO ?? 'tools/demo/scenario.json');
const scriptedDelayMs = Number(env.NOVELRAG_SCRIPTED_DELAY_MS ?? '150');
if (!Number.isInteger(scriptedDelayMs) || scriptedDelayMs < 0 || scriptedDelayMs > 60_000)
  fail('NOVELRAG_SCRIPTED_DELAY_MS must be an integer 0..60000');
mkdirSync(logDir, { recursive: true });

let stopping = false;
let ready = false;
let scripted;
const startedAt = new Date().toISOString();
const restarts = new RestartBook();

function fail(message) {
  console.error(`[novelrag] ${message}`);
  rmSync(runFile, { force: true });
  // Never leave started services or the NATS server behind.
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGTERM');
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
  const probe = async (deadline) => {
    while (!(await reachable(hp, 300))) {
      if (Date.now() > deadline) throw new Error(`no connection to ${natsUrl}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const spawnNats = () =>
    spawn(server, ['-a', hp.host, '-p', String(hp.port), '-js', '-sd', storeDir], {
      // A file descriptor, not a WriteStream: spawn needs a stream that already has an fd.
      stdio: ['ignore', 'ignore', openSync(path.join(logDir, 'nats-server.log'), 'a')],
    });
  supervise({ name: 'nats-server', app: 'nats-server', last: true, probe }, spawnNats);
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
  // The dashboard the gateway serves at /ui (skipped when up to date).
  const ui = spawnSync(process.execPath, [path.join(root, 'tools/scripts/build-dashboard.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (ui.status !== 0) fail('dashboard build failed');
}

function spawnService(app, name, main) {
  const out = streamLogs ? 'inherit' : createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a' });
  // With the Node flags the app asks for (tools/scripts/node-flags.mjs), as in its container.
  const child = spawn(process.execPath, [...nodeFlagsOf(root, app), main], {
    cwd: root,
    env: { ...env, NATS_URL: natsUrl, NOVELRAG_INSTANCE_ID: name, PORT: String(port) },
    stdio: ['ignore', streamLogs ? 'inherit' : 'pipe', streamLogs ? 'inherit' : 'pipe'],
  });
  if (!streamLogs) {
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  return child;
}

/** Starts a service process under supervision (see `supervise`): restarted when it exits unexpectedly. */
function startService(app, index) {
  const name = index === undefined ? app : `${app}-${index + 1}`;
  const main = path.join(root, 'apps', app, 'dist', 'main.js');
  if (!existsSync(main)) fail(`${main} is missing after the build`);
  // The MCP bridge has no health probe: it counts as up once started.
  const probe = app === 'mcp-bridge' ? async () => {} : (deadline) => probeHealthy(app, name, deadline);
  supervise({ name, app, last: false, probe }, () => spawnService(app, name, main));
}

/**
 * Runs `entry` (`spawn` starts its process) and watches it: an exit during startup stops everything (a boot error,
 * e.g. an invalid environment variable, is shown at once); an unexpected exit once the system runs restarts it after
 * a backoff (tools/scripts/supervise.mjs), logged loudly each time, until it crash-loops: then it is given up, and
 * the launcher stops everything when no instance of that service is left (the system cannot serve without it) or
 * keeps running with the other replicas (tool-runners).
 */
function supervise(entry, spawnIt) {
  const run = () => {
    entry.child = spawnIt();
    entry.child.on('exit', (code, signal) => {
      if (!stopping) onUnexpectedExit(entry, run, code ?? signal);
    });
  };
  run();
  children.push(entry);
}

function onUnexpectedExit(entry, run, how) {
  const log = path.join(logDir, `${entry.name}.log`);
  const showLog = () => {
    if (!streamLogs) console.error(tail(log, 12).replace(/^/gm, `  ${entry.name} | `));
  };
  if (!ready) {
    console.error(`[novelrag] ${entry.name} exited (${how}) during startup.`);
    showLog();
    console.error(`[novelrag] full log: ${log}. Stopping.`);
    return void shutdown(1);
  }
  console.error(`[novelrag] !!! ${entry.name} exited unexpectedly (${how}) while running.`);
  showLog();
  const decision = restarts.crashed(entry.name);
  if (!decision.restart) {
    entry.gaveUp = true;
    const window = RESTART_POLICY.windowMs / 1000;
    console.error(
      `[novelrag] !!! ${entry.name} crashed ${decision.crashes} times within ${window} s: crash loop, NOT restarting it (full log: ${log}).`,
    );
    const left = children.filter((c) => c.app === entry.app && !c.gaveUp).map((c) => c.name);
    if (left.length > 0) return console.error(`[novelrag] !!! continuing with ${left.join(', ')}.`);
    console.error(`[novelrag] !!! no ${entry.app} left: the system cannot run without it. Stopping.`);
    return void shutdown(1);
  }
  console.error(
    `[novelrag] !!! restarting ${entry.name} in ${decision.delayMs / 1000} s (restart ${decision.attempt}; more than ${RESTART_POLICY.limit} crashes within ${RESTART_POLICY.windowMs / 1000} s give it up; full log: ${log})`,
  );
  entry.timer = setTimeout(async () => {
    if (stopping) return;
    run();
    try {
      await entry.probe(Date.now() + 60_000);
      if (stopping) return;
      // The run file first: whoever reads the line may read the new pid at once.
      writeRunFile();
      console.log(`[novelrag] ${entry.name.padEnd(20)} restarted and ready`);
    } catch (err) {
      if (!stopping) console.error(`[novelrag] !!! ${entry.name} restarted but not ready: ${err.message}`);
    }
  }, decision.delayMs);
}

/** The last lines of a log file (a service's boot error, e.g. an invalid environment variable). */
function tail(file, lines) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Starts the scripted model in this process (see tools/demo/scripted-llm.mjs) and points the services at it. */
async function startScriptedModel() {
  const { loadScenario, startScriptedLlm } = await import(path.join(root, 'tools/demo/scripted-llm.mjs'));
  let scenario;
  try {
    scenario = loadScenario(scenarioFile);
  } catch (err) {
    fail(`NOVELRAG_SCENARIO: cannot load ${scenarioFile} (${err.message})`);
  }
  const scriptedLog = createWriteStream(path.join(logDir, 'scripted-llm.log'), { flags: 'a' });
  scripted = await startScriptedLlm({
    scenario,
    delayMs: scriptedDelayMs,
    dumpDir: env.NOVELRAG_SCRIPTED_DUMP ? path.resolve(env.NOVELRAG_SCRIPTED_DUMP) : undefined,
    log: (line) => scriptedLog.write(`${new Date().toISOString()} ${line}\n`),
  });
  env.OPENAI_BASE_URL = scripted.baseURL;
  env.OPENAI_API_KEY = 'scripted-no-key';
  env.NOVELRAG_MODEL = scripted.model;
  delete env.NOVELRAG_MODELS;
  delete env.NOVELRAG_LLM_MODE;
  console.log(
    `[novelrag] model: SCRIPTED "${scripted.scenario}" at ${scripted.baseURL} (no OPENAI_API_KEY/OPENAI_BASE_URL set)`,
  );
}

/** The gateway's own HTTP readiness (NATS and its stores), after its bus health probe answered. */
async function waitHttpReady() {
  const url = `http://127.0.0.1:${port}/health/ready`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) fail(`the gateway did not answer ${url} within 30 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Resolves once instance `name` of `app` answers its NATS health probe as ready; throws after `deadline`. */
async function probeHealthy(app, name, deadline) {
  const { connect } = await import('@nats-io/transport-node');
  const { Subjects } = await import(path.join(root, 'libs/contracts/dist/index.js'));
  const nc = await connect({ servers: natsUrl, name: 'novelrag-launcher', timeout: 5000 });
  try {
    for (;;) {
      try {
        const reply = await nc.request(Subjects.instanceHealth(app, name), '{}', { timeout: 1000 });
        const health = reply.json();
        if (!health.ok || !health.data?.ok)
          throw new Error(JSON.stringify(health.data?.checks ?? health.error));
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await nc.close();
  }
}

async function waitHealthy(services) {
  const deadline = Date.now() + 60_000;
  for (const { name, probe } of services) {
    try {
      await probe(deadline);
    } catch (err) {
      fail(`${name} did not answer its health probe within 60 s (${err.message})`);
    }
    console.log(`[novelrag] ${name.padEnd(20)} ready`);
  }
}

/** data/run/launcher.json: what `npm run demo` needs, and each process's pid (kept current across restarts). */
function writeRunFile() {
  if (!ready || stopping) return;
  const model =
    llmMode === 'scripted'
      ? { mode: 'scripted', url: scripted.url, scenario: scripted.scenario, file: scenarioFile }
      : { mode: 'openai', baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1' };
  const pids = Object.fromEntries(children.map(({ name, child }) => [name, child.pid]));
  mkdirSync(path.dirname(runFile), { recursive: true });
  const run = {
    pid: process.pid,
    gatewayUrl: `http://127.0.0.1:${port}`,
    natsUrl,
    model,
    pids,
    startedAt,
  };
  writeFileSync(runFile, JSON.stringify(run, null, 2));
}

async function shutdown(code) {
  if (stopping) {
    console.log('[novelrag] killing everything now');
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
    process.exit(code || 1);
  }
  stopping = true;
  for (const { timer } of children) clearTimeout(timer);
  rmSync(runFile, { force: true });
  console.log('\n[novelrag] stopping… (Ctrl-C again to kill at once)');
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
  await scripted?.close();
  console.log('[novelrag] stopped');
  process.exit(code);
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

await ensureNats();
build();
if (llmMode === 'scripted') await startScriptedModel();
// In dependency order, each stage ready before the next: the orchestrator discovers the tools at boot, so the
// tool-runners must already serve them (and they need the resource-service).
const stage = async (start) => {
  const before = children.length;
  start();
  await waitHealthy(children.slice(before));
};
await stage(() => startService('resource-service'));
await stage(() => {
  for (let i = 0; i < replicas; i++) startService('tool-runner', i);
});
// The MCP bridge (only with a config file): it has no health probe; the orchestrators hear its tools announced.
if (env.NOVELRAG_MCP_CONFIG) {
  const config = path.resolve(env.NOVELRAG_MCP_CONFIG);
  if (!existsSync(config)) fail(`NOVELRAG_MCP_CONFIG: ${config} does not exist`);
  env.NOVELRAG_MCP_CONFIG = config;
  startService('mcp-bridge');
}
await stage(() => startService('orchestrator'));
await stage(() => startService('gateway'));
await waitHttpReady();
ready = true;
writeRunFile();
console.log(`
[novelrag] NovelRAG is running.
  REST API      http://127.0.0.1:${port}/v1
  Health        http://127.0.0.1:${port}/health/ready
  NATS          ${natsUrl}
  Logs          ${streamLogs ? 'this terminal' : logDir}
  API docs      http://127.0.0.1:${port}/docs
  Dashboard     http://127.0.0.1:${port}/ui/
  MCP           http://127.0.0.1:${port}/mcp  (stdio: npx novelrag mcp)${env.NOVELRAG_MCP_CONFIG ? `; bridge for ${env.NOVELRAG_MCP_CONFIG}` : ''}
  Auth          ${env.NOVELRAG_AUTH_DISABLED === 'true' ? 'disabled (local use; set NOVELRAG_API_KEYS to require Bearer keys)' : 'Bearer API keys'}
  Store         ${env.QDRANT_URL ? `Qdrant at ${env.QDRANT_URL}` : `embedded (LanceDB) in ${path.join(dataDir, 'store')}`}
  Model         ${llmMode === 'scripted' ? `SCRIPTED (replays ${path.relative(root, scenarioFile)}; set OPENAI_API_KEY for a real model)` : `OpenAI-compatible at ${env.OPENAI_BASE_URL ?? 'api.openai.com'}`}
  Try           npm run demo            (in another terminal)
                npx novelrag goal "Create a protagonist named 余归 and link her to the Azure Sect"
                npm run demo -- --ask "Who is 余归?"   (the goal, then a question answered with citations)
Press Ctrl-C to stop.`);
