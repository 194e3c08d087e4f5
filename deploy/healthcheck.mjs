#!/usr/bin/env node
// Container health check of a NovelRAG service: asks THIS instance's NATS health endpoint
// (novelrag.health.<APP>.<NOVELRAG_INSTANCE_ID>) with the service's own credentials; exit 0 = healthy.
// Used by docker-compose.yml for the services without HTTP (the gateway is checked on /health/ready).
import { connect } from '@nats-io/transport-node';

const {
  APP,
  NOVELRAG_INSTANCE_ID: instance,
  NATS_URL = 'nats://127.0.0.1:4222',
  NATS_USER,
  NATS_PASSWORD,
  NATS_TLS_CA,
  NATS_TLS_CERT,
  NATS_TLS_KEY,
} = process.env;
// The same TLS settings as the service (libs/bus busTlsFromEnv): on with a CA, a client certificate or a tls:// URL.
const tls =
  NATS_TLS_CA || NATS_TLS_CERT || /(^|,)\s*tls:\/\//.test(NATS_URL)
    ? {
        ...(NATS_TLS_CA ? { caFile: NATS_TLS_CA } : {}),
        ...(NATS_TLS_CERT ? { certFile: NATS_TLS_CERT, keyFile: NATS_TLS_KEY } : {}),
      }
    : undefined;
if (!APP || !instance) {
  console.error('healthcheck: APP and NOVELRAG_INSTANCE_ID must be set');
  process.exit(1);
}
let nc;
try {
  nc = await connect({
    servers: NATS_URL.split(','),
    timeout: 3_000,
    ...(NATS_USER ? { user: NATS_USER, pass: NATS_PASSWORD } : {}),
    ...(tls ? { tls } : {}),
  });
  const reply = await nc.request(`novelrag.health.${APP}.${instance}`, '{}', { timeout: 3_000 });
  const body = reply.json();
  if (!body?.ok || !body.data?.ok) throw new Error(JSON.stringify(body?.data?.checks ?? body?.error ?? body));
  process.exitCode = 0;
} catch (err) {
  console.error(`healthcheck: ${APP}/${instance} unhealthy: ${err.message}`);
  process.exitCode = 1;
} finally {
  await nc?.close();
}
