import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type NatsConnection, connect } from '@nats-io/transport-node';

/** A NATS server (with JetStream) for a test suite. */
export interface NatsServerHandle {
  /** `nats://host:port`. */
  readonly url: string;
  /** Where it came from: an already running server, a private `nats-server` process, or a container. */
  readonly source: 'external' | 'process' | 'container';
  /** Stops what `startNats` started; a no-op for an external server. */
  stop(): Promise<void>;
  /**
   * Only for a private `nats-server` process: kills it (SIGKILL by default) and starts it again on the same port with
   * the same JetStream store, resolving once it is ready. `downMs` keeps it down that long in between.
   */
  restart?(options?: { signal?: NodeJS.Signals; downMs?: number }): Promise<void>;
}

export interface StartNatsOptions {
  /** Bound on finding or starting a server (default 20 s). */
  readonly timeoutMs?: number;
  /** Skip the running server and start a private one (for tests that stop or restart the server). */
  readonly privateServer?: boolean;
}

const DEFAULT_URL = 'nats://127.0.0.1:4222';

function tryListen(port: number): Promise<number | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A free TCP port on 127.0.0.1, released before returning. It is drawn from 20000-32767, below Linux's ephemeral range
 * (32768+), so the outbound connections other processes open meanwhile cannot take it before the service under test
 * binds it (a port from `listen(0)` could be handed out to one of them). Falls back to an OS-chosen port.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await tryListen(20_000 + Math.floor(Math.random() * 12_768));
    if (port !== undefined) return port;
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

/** True when something accepts TCP connections at the URL's host and port within `timeoutMs`. */
function reachable(url: string, timeoutMs: number): Promise<boolean> {
  let host: string;
  let port: number;
  try {
    const u = new URL(url.includes('://') ? url : `nats://${url}`);
    host = u.hostname;
    port = Number(u.port || 4222);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function onPath(binary: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, binary);
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function dockerAvailable(): boolean {
  return Boolean(process.env['DOCKER_HOST']) || existsSync('/var/run/docker.sock');
}

/** A running `nats-server` child and the promise of its exit. */
interface ServerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

/** Spawns `nats-server -js` on `port` with `storeDir`; resolves once it logs that it is ready (bounded). */
async function spawnServer(
  binary: string,
  port: number,
  storeDir: string,
  timeoutMs: number,
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const timer = setTimeout(
        () => reject(new Error(`nats-server not ready within ${timeoutMs} ms: ${log.slice(-500)}`)),
        timeoutMs,
      );
      child.stderr?.on('data', (chunk: Buffer) => {
        log += chunk.toString('utf8');
        if (log.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(
          new Error(`nats-server exited with code ${String(code)} before it was ready: ${log.slice(-500)}`),
        );
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  child.stderr?.resume(); // keep draining the log so the child never blocks on a full pipe
  return { child, exited };
}

async function stopServer(server: ServerProcess, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  await server.exited;
}

/** Starts `nats-server -js` on a free port with a private store; resolves once it logs that it is ready. */
async function spawnNatsServer(binary: string, timeoutMs: number): Promise<NatsServerHandle> {
  const port = await freePort();
  const storeDir = await mkdtemp(path.join(tmpdir(), 'novelrag-nats-'));
  let server: ServerProcess;
  try {
    server = await spawnServer(binary, port, storeDir, timeoutMs);
  } catch (err) {
    await rm(storeDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    source: 'process',
    async stop() {
      await stopServer(server, 'SIGTERM');
      await rm(storeDir, { recursive: true, force: true });
    },
    async restart(options = {}) {
      await stopServer(server, options.signal ?? 'SIGKILL');
      if (options.downMs) await new Promise((r) => setTimeout(r, options.downMs));
      server = await spawnServer(binary, port, storeDir, timeoutMs);
    },
  };
}

async function startContainer(timeoutMs: number): Promise<NatsServerHandle> {
  // Loaded only here: testcontainers is heavy and most machines of the project have no Docker engine.
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('nats:2.9')
    .withCommand(['-js'])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .withStartupTimeout(timeoutMs)
    .start();
  return {
    url: `nats://${container.getHost()}:${container.getMappedPort(4222)}`,
    source: 'container',
    async stop() {
      await container.stop();
    },
  };
}

/**
 * A NATS server with JetStream for integration tests, first that works of:
 * 1. `NATS_URL` (or 127.0.0.1:4222) when it accepts connections;
 * 2. a private `nats-server -js` on a free port with a temporary store, when `nats-server` is on PATH;
 * 3. a `nats:2.9` container through testcontainers, when a Docker engine is reachable.
 * Otherwise throws an error naming the three options. The caller must `stop()` the handle.
 */
export async function startNats(options: StartNatsOptions = {}): Promise<NatsServerHandle> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  if (!options.privateServer) {
    const url = (process.env['NATS_URL'] ?? DEFAULT_URL).split(',')[0]?.trim() || DEFAULT_URL;
    if (await reachable(url, 1_000)) {
      return { url, source: 'external', stop: () => Promise.resolve() };
    }
  }
  const binary = onPath('nats-server');
  if (binary) return spawnNatsServer(binary, timeoutMs);
  if (dockerAvailable()) return startContainer(timeoutMs);
  throw new Error(
    'No NATS server for the tests. Either (1) run one with JetStream and set NATS_URL (default ' +
      `${DEFAULT_URL}), e.g. \`nats-server -js\` or \`docker compose up -d nats\`; (2) put nats-server on PATH ` +
      '(`apt-get install nats-server`) so the tests start a private one; or (3) run a Docker engine so the tests ' +
      'start a nats:2.9 container.',
  );
}

/** A client connection for a test (named so it is recognisable in the server's monitoring). */
export async function connectTestNats(url: string): Promise<NatsConnection> {
  return connect({ servers: url, name: 'novelrag-test', timeout: 5_000 });
}
