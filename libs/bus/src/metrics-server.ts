import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsText } from '@novelrag/telemetry';
import type { ContextLogger } from './logger';

/** A service's own Prometheus endpoint: `GET /metrics` on its own port (the gateway serves it on its HTTP app). */
export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the process's metrics at `http://<host>:<port>/metrics` (anything else is 404). */
export async function startMetricsServer(
  port: number,
  host: string,
  log: ContextLogger,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metricsText().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: unknown) => {
        log.warn('metrics not collected', { error: err instanceof Error ? err.message : String(err) });
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}/metrics`;
  log.info('metrics served', { url });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
