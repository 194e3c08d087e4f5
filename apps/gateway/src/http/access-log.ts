import { randomUUID } from 'node:crypto';
import type { ContextLogger } from '@novelrag/bus';
import { Metrics } from '@novelrag/telemetry';

/** The header that carries a request's id, in and out. */
export const REQUEST_ID_HEADER = 'X-Request-Id';
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

interface AccessRequest {
  readonly method: string;
  readonly originalUrl?: string;
  readonly url: string;
  header(name: string): string | undefined;
}
interface AccessResponse {
  readonly statusCode: number;
  setHeader(name: string, value: string): unknown;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

/**
 * Express middleware: every request gets an id (the client's `X-Request-Id` when it is a short token, else a new UUID),
 * echoed in the response header, and one JSON access-log line when the response ends: method, path (no query string),
 * status, duration, request id. Never headers or bodies (keys and content stay out of logs).
 */
export function accessLog(log: ContextLogger) {
  return (req: AccessRequest, res: AccessResponse, next: () => void): void => {
    const offered = req.header(REQUEST_ID_HEADER);
    const requestId = offered && CLIENT_ID.test(offered) ? offered : randomUUID();
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const status = res.statusCode;
      Metrics.httpRequests.inc({ method: req.method, status: String(status) });
      log.info('http request', {
        requestId,
        method: req.method,
        path: (req.originalUrl ?? req.url).split('?')[0],
        status,
        durationMs: Math.round(performance.now() - started),
      });
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
