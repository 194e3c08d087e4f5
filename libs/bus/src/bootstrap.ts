import type { DynamicModule, INestApplication, INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ServiceName } from '@novelrag/contracts';
import { type Tracing, startMetrics, startTracing, withoutEmptyOtel } from '@novelrag/telemetry';
import { z } from 'zod';
import { BusModule, type ServiceIdentity } from './bus.module';
import { BaseEnv, defaultInstanceId, parseEnv } from './config';
import { busTlsFromEnv, connectBus } from './connect';
import { BusExceptionFilter } from './exception-filter';
import { HealthRegistry } from './health';
import { JsonLogger } from './logger';
import { NatsMicroServer } from './micro-server';
import { startMetricsServer } from './metrics-server';

export const NOVELRAG_VERSION = '0.1.0';

export interface ServiceContext<E> {
  readonly env: BaseEnv & E;
  readonly connection: NatsConnection;
  readonly logger: JsonLogger;
  readonly identity: ServiceIdentity;
  readonly health: HealthRegistry;
  /** Import this in the root module: it provides the connection, logger, health and identity, and answers health. */
  readonly bus: DynamicModule;
}

export interface ServiceDefinition<E extends object> {
  readonly service: ServiceName;
  /** Micro service name in `$SRV.INFO` (e.g. `novelrag-resources`). */
  readonly microName: string;
  readonly description: string;
  /** The service's own environment variables (merged with BaseEnv). */
  readonly envSchema: z.ZodObject<z.ZodRawShape> & z.ZodType<E>;
  /** Builds the root module from the validated context. */
  readonly module: (ctx: ServiceContext<E>) => Type | DynamicModule | Promise<Type | DynamicModule>;
  /** When set, the service is also an HTTP application listening on the returned port (the gateway). */
  readonly http?: (env: BaseEnv & E) => { readonly port: number; readonly host: string };
  readonly configureHttp?: (app: INestApplication, ctx: ServiceContext<E>) => void | Promise<void>;
}

export interface RunningService<E> {
  readonly ctx: ServiceContext<E>;
  readonly app: INestApplicationContext;
  /** HTTP URL when the service listens on HTTP. */
  readonly url?: string;
  /** URL of the service's own metrics endpoint, when `NOVELRAG_METRICS_PORT` is set (not the gateway's). */
  readonly metricsUrl?: string;
  /** Graceful stop: stop taking work, finish what is in flight (bounded), drain the connection. */
  close(): Promise<void>;
}

/**
 * Validates the environment, connects to NATS (bounded), boots the Nest application on the NATS micro transport
 * (plus HTTP for the gateway) and returns a handle. Tests use this in-process; `runServiceMain` wraps it for `main.ts`.
 */
export async function startService<E extends object>(
  def: ServiceDefinition<E>,
  rawEnv: Record<string, string | undefined> = process.env,
): Promise<RunningService<E>> {
  const env = parseEnv(BaseEnv.extend(def.envSchema.shape), withoutEmptyOtel(rawEnv)) as BaseEnv & E;
  const instanceId = env.NOVELRAG_INSTANCE_ID ?? defaultInstanceId(def.service);
  const logger = new JsonLogger(def.service, instanceId, env.NOVELRAG_LOG_LEVEL);
  const tracing = startTracing({ service: def.service, instanceId, version: NOVELRAG_VERSION }, env);
  startMetrics({ service: def.service, instance: instanceId });
  const connection = await connectFromEnv(env, instanceId);
  const identity: ServiceIdentity = { service: def.service, instanceId, version: NOVELRAG_VERSION };
  const health = new HealthRegistry(def.service, instanceId, NOVELRAG_VERSION);
  health.register('nats', () =>
    Promise.resolve(connection.isClosed() ? { ok: false, detail: 'closed' } : { ok: true }),
  );
  const ctx: ServiceContext<E> = {
    env,
    connection,
    logger,
    identity,
    health,
    bus: BusModule.forRoot({ connection, identity, logger, health }),
  };
  const strategy = new NatsMicroServer({
    connection,
    name: def.microName,
    version: NOVELRAG_VERSION,
    description: def.description,
    metadata: { service: def.service, instance: instanceId },
    gracePeriodMs: env.NOVELRAG_SHUTDOWN_GRACE_MS,
    logger: logger.child('NatsMicroServer'),
  });
  const filter = new BusExceptionFilter(logger.child('BusExceptionFilter'));
  try {
    const root = await def.module(ctx);
    const http = def.http?.(env);
    if (http) {
      const app = await NestFactory.create(root, { logger, bufferLogs: false, bodyParser: false });
      await def.configureHttp?.(app, ctx);
      // The HTTP app has its own filters (HTTP error bodies); the bus side keeps coded envelopes.
      app.connectMicroservice({ strategy }, { inheritAppConfig: false }).useGlobalFilters(filter);
      // Health answers over NATS as soon as the microservice starts; it must not say ok before HTTP accepts.
      let listening = false;
      health.register('http', () =>
        Promise.resolve(listening ? { ok: true } : { ok: false, detail: 'not listening yet' }),
      );
      await app.startAllMicroservices();
      await app.listen(http.port, http.host);
      listening = true;
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      logger.write('info', 'service ready', { url });
      return { ctx, app, url, close: () => closeAll(app, connection, logger, tracing) };
    }
    const app = await NestFactory.createMicroservice(root, { strategy, logger, bufferLogs: false });
    app.useGlobalFilters(filter);
    await app.listen();
    const metrics = await metricsPortOf(env, logger);
    logger.write('info', 'service ready', {
      micro: def.microName,
      ...(metrics ? { metrics: metrics.url } : {}),
    });
    return {
      ctx,
      app,
      ...(metrics ? { metricsUrl: metrics.url } : {}),
      close: async () => {
        await metrics?.close();
        await closeAll(app, connection, logger, tracing);
      },
    };
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw err;
  }
}

/** The service's NATS connection, as the environment describes it (servers, credentials, TLS). */
function connectFromEnv(env: BaseEnv, name: string): Promise<NatsConnection> {
  const tls = busTlsFromEnv(env);
  return connectBus({
    url: env.NATS_URL,
    name,
    connectTimeoutMs: env.NOVELRAG_CONNECT_TIMEOUT_MS,
    ...(env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD } : {}),
    ...(tls ? { tls } : {}),
  });
}

/** The metrics port of a service without HTTP, when `NOVELRAG_METRICS_PORT` is set. */
async function metricsPortOf(env: BaseEnv, logger: JsonLogger) {
  if (env.NOVELRAG_METRICS_PORT === undefined) return undefined;
  return startMetricsServer(env.NOVELRAG_METRICS_PORT, env.NOVELRAG_METRICS_HOST, logger.child('Metrics'));
}

async function closeAll(
  app: INestApplicationContext,
  connection: NatsConnection,
  logger: JsonLogger,
  tracing: Tracing,
): Promise<void> {
  logger.write('info', 'stopping');
  await app.close();
  if (!connection.isClosed()) await connection.drain().catch(() => connection.close());
  await tracing.flush().catch(() => undefined);
  logger.write('info', 'stopped');
}

/**
 * Entry point for `main.ts`: starts the service, stops it gracefully on SIGTERM/SIGINT (forced exit after the grace
 * period), logs unhandled rejections instead of dying on them, and exits 1 with a clear message when boot fails.
 */
export function runServiceMain<E extends object>(def: ServiceDefinition<E>): void {
  let running: RunningService<E> | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running?.ctx.logger.write('info', 'signal received', { signal });
    const grace = running?.ctx.env.NOVELRAG_SHUTDOWN_GRACE_MS ?? 10_000;
    const force = setTimeout(() => {
      process.stderr.write(`${def.service}: forced exit after ${grace + 5_000} ms (${signal})\n`);
      process.exit(1);
    }, grace + 5_000);
    force.unref();
    void (running?.close() ?? Promise.resolve()).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${def.service}: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('unhandledRejection', (reason) => {
    const detail = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
    if (running) running.ctx.logger.write('error', 'unhandled rejection', { error: detail });
    else process.stderr.write(`${def.service}: unhandled rejection: ${detail}\n`);
  });
  startService(def).then(
    (r) => {
      running = r;
      if (stopping) void r.close().then(() => process.exit(0));
    },
    (err: unknown) => {
      process.stderr.write(
        `${def.service}: failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
