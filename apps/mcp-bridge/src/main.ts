import { connect } from '@nats-io/transport-node';
import { defaultInstanceId, parseEnv } from '@novelrag/bus';
import type { HostLogger } from '@novelrag/tool-kit';
import { BRIDGE_INBOX_PREFIX, BridgeEnv, loadBridgeConfig } from './config';
import { ServerSupervisor } from './server-supervisor';

/** JSON lines on stdout; fields are ids and reasons, never tool arguments or results. */
function jsonLogger(instance: string): HostLogger {
  const line = (level: string, msg: string, fields?: Record<string, unknown>) =>
    process.stdout.write(
      `${JSON.stringify({ time: new Date().toISOString(), level, service: 'mcp-bridge', instance, msg, ...fields })}\n`,
    );
  return {
    info: (m, f) => line('info', m, f),
    warn: (m, f) => line('warn', m, f),
    error: (m, f) => line('error', m, f),
  };
}

/**
 * The MCP bridge: hosts the tools of the MCP servers named in NOVELRAG_MCP_CONFIG as NovelRAG tools on the bus. Any
 * number of bridges with the same config share the calls (queue group), like tool-runners.
 */
async function main(): Promise<void> {
  const env = parseEnv(BridgeEnv, process.env);
  const instanceId = env.NOVELRAG_INSTANCE_ID ?? defaultInstanceId('mcp-bridge');
  const logger = jsonLogger(instanceId);
  const config = loadBridgeConfig(env.NOVELRAG_MCP_CONFIG);
  const nc = await connect({
    servers: env.NATS_URL.split(','),
    name: instanceId,
    timeout: env.NOVELRAG_CONNECT_TIMEOUT_MS,
    maxReconnectAttempts: -1,
    // The bridge may not read other services' replies: its requests use its own inbox prefix (deploy/nats/nats.conf).
    inboxPrefix: BRIDGE_INBOX_PREFIX,
    ...(env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD } : {}),
  });
  const supervisors = Object.entries(config.servers).map(
    ([name, server]) =>
      new ServerSupervisor({
        name,
        config: server,
        connection: nc,
        instanceId,
        logger,
        maxRestartMs: env.NOVELRAG_MCP_RESTART_MAX_MS,
      }),
  );
  await Promise.all(supervisors.map((s) => s.start()));
  logger.info('MCP bridge started', {
    servers: supervisors.map((s) => ({ state: s.state, tools: s.tools.length })),
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void Promise.all(supervisors.map((s) => s.stop()))
      .then(() => nc.drain())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`mcp-bridge failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
