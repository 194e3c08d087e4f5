import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { freePort } from './nats-harness';
import { REPO_ROOT } from './repo-root';

export const NATS_CONFIG = path.join(REPO_ROOT, 'deploy/nats/nats.conf');

/** The users of deploy/nats/nats.conf and the env variable holding each password. */
export const NATS_USERS = {
  gateway: 'NATS_GATEWAY_PASSWORD',
  orchestrator: 'NATS_ORCHESTRATOR_PASSWORD',
  'tool-runner': 'NATS_TOOL_RUNNER_PASSWORD',
  'resource-service': 'NATS_RESOURCES_PASSWORD',
  'tool-examples': 'NATS_TOOL_EXAMPLES_PASSWORD',
  'mcp-bridge': 'NATS_MCP_BRIDGE_PASSWORD',
} as const;
export type NatsUser = keyof typeof NATS_USERS;

export const passwordOf = (user: NatsUser) => `pw-${user}-0123456789`;

/** The environment nats-server needs to resolve the config's password variables. */
export function passwordEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(NATS_USERS).map(([user, name]) => [name, passwordOf(user as NatsUser)]),
  );
}

export interface AuthNats {
  readonly url: string;
  connectAs(user: NatsUser, options?: Partial<ConnectionOptions>): Promise<NatsConnection>;
  /** NATS_URL / NATS_USER / NATS_PASSWORD for a service process. */
  envFor(user: NatsUser): Record<string, string>;
  output(): string;
  stop(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A private nats-server started from the project's own config, or from `config` (a copy with admitted tools), on free
 * ports with a temporary JetStream store.
 */
export async function startAuthNats(config = NATS_CONFIG): Promise<AuthNats> {
  const [port, monitor] = [await freePort(), await freePort()];
  const store = await mkdtemp(path.join(tmpdir(), 'novelrag-auth-nats-'));
  const child: ChildProcess = spawn(
    'nats-server',
    ['-c', config, '-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-sd', store],
    { env: { ...process.env, ...passwordEnv() }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`nats-server with ${config} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = `nats://127.0.0.1:${port}`;
  return {
    url,
    connectAs: (user, options = {}) =>
      // A first connection is bounded at 60 s, not nats.js's 20 s: on a machine loaded far past its cores a handshake
      // can take longer (an nkey one in nats-admission did).
      connect({
        servers: url,
        user,
        pass: passwordOf(user),
        name: `test-${user}`,
        timeout: 60_000,
        ...options,
      }),
    envFor: (user) => ({ NATS_URL: url, NATS_USER: user, NATS_PASSWORD: passwordOf(user) }),
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(store, { recursive: true, force: true });
    },
  };
}
