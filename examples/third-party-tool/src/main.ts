import { connect } from '@nats-io/transport-node';
import { MicroServiceNames } from '@novelrag/contracts';
import { ToolHost } from '@novelrag/tool-kit';
import { diceRoll, wordCount } from './tools';

/**
 * A third-party tool process: connects to NATS, serves its tools as the micro service `novelrag-tools-examples`, and
 * stops cleanly on SIGTERM/SIGINT. The orchestrator discovers the tools through `$SRV.INFO`; nothing else is needed.
 *   NATS_URL=nats://127.0.0.1:4222 node examples/third-party-tool/dist/main.js
 */
async function main(): Promise<void> {
  const nc = await connect({
    servers: (process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222').split(','),
    name: 'example-tools',
  });
  const host = new ToolHost({
    connection: nc,
    serviceName: MicroServiceNames.toolService('examples'),
    version: '1.0.0',
    instanceId: process.env['NOVELRAG_INSTANCE_ID'] ?? `example-tools-${process.pid}`,
    tools: [diceRoll, wordCount],
    logger: {
      info: (m, f) => console.log(JSON.stringify({ level: 'info', msg: m, ...f })),
      warn: (m, f) => console.warn(JSON.stringify({ level: 'warn', msg: m, ...f })),
      error: (m, f) => console.error(JSON.stringify({ level: 'error', msg: m, ...f })),
    },
  });
  await host.start();
  const stop = () => {
    void host
      .stop(5_000)
      .then(() => nc.drain())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(`example tools failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
