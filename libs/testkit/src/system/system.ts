import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ServiceName } from '@novelrag/contracts';
import { FakeOpenAIServer } from '../fake-openai-server';
import { type NatsServerHandle, freePort, startNats } from '../nats-harness';
import { REPO_ROOT } from '../repo-root';
import { type ServiceProcess, buildServices, startServiceProcess } from '../service-process';
import { diagnose } from './diagnose';
import { type FollowOptions, type SseEvent, followEvents } from './sse';

export interface System {
  readonly nats: NatsServerHandle;
  readonly nc: NatsConnection;
  readonly fake: FakeOpenAIServer;
  readonly url: string;
  readonly processes: ServiceProcess[];
  readonly env: (extra?: Record<string, string>) => Record<string, string>;
  start(app: ServiceName, instanceId: string, extra?: Record<string, string>): Promise<ServiceProcess>;
  http(route: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Follows a goal's SSE until its final event (or `until` says stop, which drops the connection), bounded. */
  events(goalId: string, options?: FollowOptions): Promise<SseEvent[]>;
  /** A separate OS process (e.g. the third-party tool example). */
  spawnProcess(script: string, env: Record<string, string>): ChildProcess;
  stop(): Promise<void>;
}

export interface StartSystemOptions {
  readonly runners?: number;
  readonly beforeOrchestrator?: (natsUrl: string) => Promise<void>;
  /** Extra environment for every service. */
  readonly env?: Record<string, string>;
  /** Keep the services' own lease and ack-wait defaults instead of the short ones tests use (e.g. for figures). */
  readonly serviceDefaults?: boolean;
}

/** The short leases and ack waits of systemEnv, so failures show quickly in tests. */
const SHORT_TIMINGS = [
  'NOVELRAG_GOAL_ACK_WAIT_MS',
  'NOVELRAG_THREAD_LEASE_MS',
  'NOVELRAG_TOOL_REFRESH_MS',
  'NOVELRAG_TOOL_LEASE_MS',
  'NOVELRAG_SHUTDOWN_GRACE_MS',
] as const;

const children: ChildProcess[] = [];

/** Starts a separate OS process from a compiled script (killed by System.stop). */
export function spawnProcess(script: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, script)], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.push(child);
  return child;
}

/**
 * The environment every service of a system gets: short tool leases so failures show quickly. The goal ack wait and the
 * thread lease keep their defaults (short already: the takeover after a crash is part of what the suites check).
 */
function systemEnv(nats: NatsServerHandle, fake: FakeOpenAIServer, dataDir: string, port: number) {
  return {
    NATS_URL: nats.url,
    NOVELRAG_DATA_DIR: dataDir,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'e2e-key',
    NOVELRAG_MODEL: 'fake-model',
    NOVELRAG_TOOL_REFRESH_MS: '1000',
    NOVELRAG_TOOL_LEASE_MS: '2000',
    NOVELRAG_SHUTDOWN_GRACE_MS: '3000',
    NOVELRAG_AUTH_DISABLED: 'true',
    PORT: String(port),
  };
}

/** A JSON request to the gateway; a failed connection is reported with the state of every service process. */
async function gatewayHttp(
  url: string,
  route: string,
  init: RequestInit,
  processes: readonly ServiceProcess[],
): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(`${url}${route}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw await diagnose(err, processes);
  }
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/**
 * The whole system as OS processes on a private NATS, the model faked at the HTTP boundary: resource-service,
 * `runners` tool-runners, an orchestrator and the gateway, started in dependency order like `npm start`.
 */
export async function startSystem(label: string, options: StartSystemOptions = {}): Promise<System> {
  const runners = options.runners ?? 1;
  buildServices();
  const nats = await startNats({ privateServer: true });
  const nc = await connect({ servers: nats.url });
  const fake = await FakeOpenAIServer.start();
  const dataDir = await mkdtemp(path.join(tmpdir(), `novelrag-${label}-`));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const processes: ServiceProcess[] = [];
  const base: Record<string, string> = systemEnv(nats, fake, dataDir, port);
  if (options.serviceDefaults) for (const name of SHORT_TIMINGS) delete base[name];
  const env = (extra: Record<string, string> = {}) => ({ ...base, ...options.env, ...extra });
  const start = async (app: ServiceName, instanceId: string, extra: Record<string, string> = {}) => {
    const p = await startServiceProcess(app, instanceId, env(extra));
    processes.push(p);
    return p;
  };
  await start('resource-service', `${label}-rs`);
  for (let i = 1; i <= runners; i++) await start('tool-runner', `${label}-runner-${i}`);
  await options.beforeOrchestrator?.(nats.url);
  await start('orchestrator', `${label}-orch-1`);
  await start('gateway', `${label}-gw`);
  return {
    nats,
    nc,
    fake,
    url,
    processes,
    env,
    start,
    http: (route, init = {}) => gatewayHttp(url, route, init, processes),
    events: (goalId, follow = {}) => followEvents(url, goalId, follow, processes),
    spawnProcess,
    stop: async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      for (const p of [...processes].reverse()) await p.stop('SIGKILL');
      await fake.close();
      await nc.close();
      await nats.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
