import { connect, type NatsConnection } from '@nats-io/transport-node';
import { quietRequestCancel } from './request-cancel';

export interface BusConnectOptions {
  /** Comma-separated server URLs (`NATS_URL`). */
  readonly url: string;
  /** Connection name shown in NATS monitoring, e.g. `tool-runner-2`. */
  readonly name: string;
  /** Bound on the first connection attempt (the process fails fast with a clear error after it). */
  readonly connectTimeoutMs?: number;
  readonly user?: string;
  readonly pass?: string;
  /** TLS to the server: on when set (the server's certificate is checked against `caFile`, or the system CAs). */
  readonly tls?: BusTlsOptions;
}

export interface BusTlsOptions {
  /** PEM file of the CA that signed the server's certificate (a self-signed certificate is its own CA). */
  readonly caFile?: string;
  /** PEM files of a client certificate and its key, for servers that verify clients (mutual TLS). */
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** The TLS options of the NATS_TLS_* variables: TLS is on when a CA is given or the URL asks for it (`tls://`). */
export function busTlsFromEnv(env: {
  readonly NATS_URL: string;
  readonly NATS_TLS_CA?: string | undefined;
  readonly NATS_TLS_CERT?: string | undefined;
  readonly NATS_TLS_KEY?: string | undefined;
}): BusTlsOptions | undefined {
  const wanted = env.NATS_TLS_CA || env.NATS_TLS_CERT || /(^|,)\s*tls:\/\//.test(env.NATS_URL);
  if (!wanted) return undefined;
  return {
    ...(env.NATS_TLS_CA ? { caFile: env.NATS_TLS_CA } : {}),
    ...(env.NATS_TLS_CERT ? { certFile: env.NATS_TLS_CERT } : {}),
    ...(env.NATS_TLS_KEY ? { keyFile: env.NATS_TLS_KEY } : {}),
  };
}

/** Raised when the first connection to NATS cannot be made within the bound. */
export class BusConnectError extends Error {
  override readonly name = 'BusConnectError';
  readonly code = 'UNAVAILABLE';
}

/**
 * Connects to NATS. The first connection is bounded by `connectTimeoutMs` (default 10 s) and fails with a message that
 * says how to get a server; after that the client reconnects forever (a NATS restart must not take a service down).
 * Requests do not capture their caller's stack (`noAsyncTraces`): it costs an Error per request; nor does the error
 * nobody sees that nats-core builds at the end of each request (`quietRequestCancel`).
 */
export async function connectBus(options: BusConnectOptions): Promise<NatsConnection> {
  quietRequestCancel();
  const servers = options.url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const timeout = options.connectTimeoutMs ?? 10_000;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  // `waitOnFirstConnect` would retry without a bound; retry ourselves until the deadline instead.
  while (Date.now() < deadline) {
    try {
      return await connect({
        servers,
        name: options.name,
        timeout: Math.max(500, Math.min(2_000, deadline - Date.now())),
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        // No stack captured up front for every request (an Error object per request on the dispatch and acceptance
        // paths); failures are mapped to coded errors that say which subject failed anyway (mapTransportError).
        noAsyncTraces: true,
        ...(options.user ? { user: options.user, pass: options.pass } : {}),
        ...(options.tls ? { tls: { ...options.tls } } : {}),
      });
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new BusConnectError(
    `cannot connect to NATS at ${servers.join(', ')} within ${timeout} ms (${reason}). ` +
      'Start one with `nats-server -js`, `docker compose up -d nats`, or set NATS_URL.',
  );
}
