import { connect, nkeyAuthenticator } from '@nats-io/transport-node';
import { MicroServiceNames } from '@novelrag/contracts';
import { ToolHost } from '@novelrag/tool-kit';
import { diceRoll, wordCount } from './tools';

/**
 * A third-party tool process: connects to NATS, serves its tools as the micro service `novelrag-tools-examples`, and
 * stops cleanly on SIGTERM/SIGINT. The orchestrator discovers the tools through `$SRV.INFO`; nothing else is needed.
 *   NATS_URL=nats://127.0.0.1:4222 node examples/third-party-tool/dist/main.js
 * On a server with NovelRAG's NATS config the tool has its own identity: NATS_NKEY_SEED (what `npm run admit-tool`
 * printed) or NATS_USER/NATS_PASSWORD (`tool-examples` in deploy/nats/nats.conf); its requests use the inbox prefix
 * `_INBOX_examples`, the only inbox it may read.
 */
function credentials() {
  const { NATS_NKEY_SEED: seed, NATS_USER: user, NATS_PASSWORD: pass } = process.env;
  if (seed) return { authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)) };
  return user ? { user, pass } : {};
}

async function main(): Promise<void> {
  const nc = await connect({
    servers: (process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222').split(','),
    name: 'example-tools',
    inboxPrefix: '_INBOX_examples',
    ...credentials(),
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
