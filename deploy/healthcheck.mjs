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
} = process.env;
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
