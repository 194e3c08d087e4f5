import {
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  type MsgHdrs,
  type NatsConnection,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';
import { ErrorEnvelope, MAX_MESSAGE_BYTES } from '@novelrag/contracts';
import { z } from 'zod';
import { BusError, summarizeZodError } from './errors';
import { inSendSpan, withTraceHeaders } from './trace-headers';

export interface BusRequestOptions {
  /** Bound on the wait for the reply (required: every wait is bounded). */
  readonly timeoutMs: number;
  readonly headers?: MsgHdrs;
  readonly signal?: AbortSignal;
}

const ReplyEnvelope = z.union([
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: ErrorEnvelope }),
]);

/**
 * Request/reply to a `NatsMicroServer` endpoint (or any responder answering `{ok, data | error}`), parsing the data
 * with `schema`. Throws `BusError` with: NO_RESPONDERS when nobody serves the subject, TIMEOUT after `timeoutMs`,
 * CANCELLED when `signal` aborts, the responder's own code for an error reply, VALIDATION_FAILED when the reply does not
 * match the schema (a contract violation by the responder), PAYLOAD_TOO_LARGE for an oversized request.
 */
export async function busRequest<T>(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  schema: z.ZodType<T>,
  options: BusRequestOptions,
): Promise<T> {
  const body = JSON.stringify(payload ?? {});
  if (Buffer.byteLength(body) > MAX_MESSAGE_BYTES) {
    throw BusError.of('PAYLOAD_TOO_LARGE', `request to ${subject} exceeds ${MAX_MESSAGE_BYTES} bytes`);
  }
  if (options.signal?.aborted) throw BusError.of('CANCELLED', `request to ${subject} cancelled`);
  return inSendSpan(subject, () => requestAndParse(nc, subject, body, schema, options));
}

async function requestAndParse<T>(
  nc: NatsConnection,
  subject: string,
  body: string,
  schema: z.ZodType<T>,
  options: BusRequestOptions,
): Promise<T> {
  let raw: unknown;
  try {
    const headers = withTraceHeaders(options.headers);
    const request = nc.request(subject, body, {
      timeout: options.timeoutMs,
      ...(headers ? { headers } : {}),
    });
    const msg = await (options.signal
      ? raceAbort(request, options.signal, () => BusError.of('CANCELLED', `request to ${subject} cancelled`))
      : request);
    raw = msg.data.length ? msg.json() : null;
  } catch (err) {
    throw mapTransportError(err, subject, options.timeoutMs);
  }
  const reply = ReplyEnvelope.safeParse(raw);
  if (!reply.success) {
    throw BusError.of('INTERNAL', `malformed reply from ${subject}: ${summarizeZodError(reply.error)}`);
  }
  if (!reply.data.ok) throw new BusError(reply.data.error);
  const data = schema.safeParse(reply.data.data);
  if (!data.success) {
    throw BusError.of(
      'INTERNAL',
      `reply from ${subject} violates its contract: ${summarizeZodError(data.error)}`,
    );
  }
  return data.data;
}

/**
 * Settles like `p`, or rejects with `onAbort()` as soon as `signal` aborts (the underlying work is not stopped; callers
 * use it to stop waiting). Removes its listener either way.
 */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

const TRANSPORT_ERRORS = [
  TimeoutError,
  NoRespondersError,
  RequestError,
  ClosedConnectionError,
  DrainingConnectionError,
  ConnectionError,
] as const;

/**
 * A NATS client error thrown by a direct client call (a JetStream API request, a KV read, a consumer) as a retryable
 * BusError (TIMEOUT, NO_RESPONDERS or UNAVAILABLE), so that a bus hiccup reaches a caller as "try again", not as an
 * internal error; `undefined` for anything else.
 */
export function transportError(err: unknown, what = 'the bus'): BusError | undefined {
  if (!TRANSPORT_ERRORS.some((type) => err instanceof type)) return undefined;
  if (err instanceof NoRespondersError) return BusError.of('NO_RESPONDERS', `nothing serves ${what}`);
  if (err instanceof TimeoutError) return BusError.of('TIMEOUT', `${what} did not answer in time`);
  return BusError.of('UNAVAILABLE', `${what} is unreachable now: ${(err as Error).message}`);
}

export function mapTransportError(err: unknown, subject: string, timeoutMs: number): BusError {
  if (err instanceof BusError) return err;
  const e = err as { name?: string; message?: string; cause?: { name?: string } };
  const text = `${e.name ?? ''} ${e.message ?? ''} ${e.cause?.name ?? ''}`.toLowerCase();
  if (text.includes('no responders') || text.includes('norespondersError'.toLowerCase())) {
    return BusError.of('NO_RESPONDERS', `nothing serves ${subject}`);
  }
  if (text.includes('timeout'))
    return BusError.of('TIMEOUT', `no reply from ${subject} within ${timeoutMs} ms`);
  if (text.includes('payload'))
    return BusError.of('PAYLOAD_TOO_LARGE', `request to ${subject} rejected: ${e.message ?? ''}`);
  return BusError.of('UNAVAILABLE', `request to ${subject} failed: ${e.message ?? String(err)}`);
}
