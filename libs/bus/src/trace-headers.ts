import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import {
  type Context,
  type Span,
  SpanKind,
  extractTraceContext,
  hasTraceContext,
  inSpan,
  injectTraceContext,
} from '@novelrag/telemetry';

/**
 * `base` (or new headers) with the active span's W3C `traceparent`; `base` unchanged (possibly undefined) when no span
 * is active, so a message costs nothing extra while tracing is off.
 */
export function withTraceHeaders(base?: MsgHdrs): MsgHdrs | undefined {
  if (!hasTraceContext()) return base;
  const h = base ?? natsHeaders();
  injectTraceContext(h);
  return h;
}

/** The trace context a received message continues (root when it carries none). */
export function traceContextOf(headers: MsgHdrs | undefined): Context {
  return extractTraceContext(headers);
}

/**
 * Runs the handling of a received message inside a span (SERVER for a request, CONSUMER for an event) that continues
 * the sender's trace.
 */
export function inReceiveSpan<T>(
  kind: 'request' | 'event',
  pattern: string,
  headers: MsgHdrs | undefined,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return inSpan(
    `process ${pattern}`,
    {
      kind: kind === 'request' ? SpanKind.SERVER : SpanKind.CONSUMER,
      parent: traceContextOf(headers),
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': pattern },
    },
    fn,
  );
}

/** Runs a request to `subject` inside a CLIENT span whose context the request's headers carry. */
export function inSendSpan<T>(subject: string, fn: (span: Span) => Promise<T>): Promise<T> {
  return inSpan(
    `send ${subject}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    },
    fn,
  );
}
