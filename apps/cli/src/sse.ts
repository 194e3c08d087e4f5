import { CliError } from './errors';
import { apiError, type GatewayClient } from './gateway-client';

export interface SseMessage {
  /** The `id:` field (the TRACE stream sequence for the gateway), if any. */
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/** Incremental parser of the `text/event-stream` format (WHATWG): fields, multi-line data, comments, CRLF. */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private hasFields = false;

  feed(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone trailing \r may be the first half of \r\n: wait for the next chunk.
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      if (!this.hasFields) return undefined;
      const message = { id: this.id, event: this.event || 'message', data: this.data.join('\n') };
      this.data = [];
      this.event = '';
      this.hasFields = false;
      return message;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasFields = true;
        break;
      case 'event':
        this.event = value;
        this.hasFields = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      default:
        break; // `retry` and unknown fields: the CLI has its own reconnect policy
    }
    return undefined;
  }
}

export interface SseFollowOptions {
  /** Resume after this id (Last-Event-ID). */
  readonly lastEventId?: string;
  /** Aborts the whole follow (the caller's overall bound). */
  readonly signal: AbortSignal;
  /** Reconnect when nothing (not even a heartbeat) arrives for this long. The gateway pings every 15 s. */
  readonly idleMs?: number;
  /** Reconnects in a row without receiving an event before giving up. */
  readonly maxReconnects?: number;
  /** Called before each reconnect (for a notice). */
  readonly onReconnect?: (attempt: number, lastEventId: string | undefined, reason: string) => void;
}

/** What the follow carries from one connection to the next. */
interface FollowState {
  /** The id of the last message yielded (sent as Last-Event-ID on reconnect). */
  lastEventId: string | undefined;
  /** Connections lost in a row without a message in between. */
  failures: number;
  /** Why the last connection was lost (for the notice and the final error). */
  reason: string;
}

/**
 * Follows an SSE route of the gateway until it sends `event: end`: reconnects after a drop, an idle connection or an
 * `event: error`, resuming with `Last-Event-ID` so nothing is missed or repeated. HTTP errors (404, 401…) are thrown as
 * coded CliErrors; running out of reconnects is UNREACHABLE; the caller's signal ends it with TIMEOUT.
 */
export async function* followSse(
  client: GatewayClient,
  route: string,
  options: SseFollowOptions,
): AsyncGenerator<SseMessage> {
  const state: FollowState = { lastEventId: options.lastEventId, failures: 0, reason: '' };
  const idleMs = options.idleMs ?? 45_000;
  const maxReconnects = options.maxReconnects ?? 8;
  for (;;) {
    if (options.signal.aborted) throw timeoutError(route);
    if (yield* connectOnce(client, route, options.signal, idleMs, state)) return;
    state.failures += 1;
    if (state.failures > maxReconnects) {
      throw new CliError(
        'unreachable',
        'UNREACHABLE',
        `lost the event stream of ${route} ${maxReconnects} times in a row (${state.reason}); resume with \`novelrag follow\``,
        state.lastEventId !== undefined ? { lastEventId: state.lastEventId } : undefined,
      );
    }
    options.onReconnect?.(state.failures, state.lastEventId, state.reason);
    await delay(Math.min(250 * 2 ** (state.failures - 1), 5_000), options.signal);
  }
}

/**
 * One connection: yields its messages and returns true once the stream ended (`event: end`), false when the
 * connection was lost (why in `state.reason`). Throws a 4xx answer as its CliError, and TIMEOUT once `signal` aborts.
 */
async function* connectOnce(
  client: GatewayClient,
  route: string,
  signal: AbortSignal,
  idleMs: number,
  state: FollowState,
): AsyncGenerator<SseMessage, boolean> {
  const connection = new AbortController();
  const abortConnection = () => connection.abort();
  signal.addEventListener('abort', abortConnection, { once: true });
  let idle: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => connection.abort(), idleMs);
  };
  state.reason = 'the connection closed';
  try {
    touch();
    const res = await fetch(client.url(route), {
      signal: connection.signal,
      headers: {
        accept: 'text/event-stream',
        ...client.authHeaders(),
        ...(state.lastEventId !== undefined ? { 'last-event-id': state.lastEventId } : {}),
      },
    });
    if (!res.ok) state.reason = await httpFailure(res, route);
    else if (res.body) return yield* readMessages(res.body, touch, state);
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (signal.aborted) throw timeoutError(route);
    state.reason = connection.signal.aborted ? `no data for ${idleMs} ms` : errorReason(err);
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', abortConnection);
    connection.abort();
  }
  return false;
}

/** Yields the messages of one response body; returns true at `event: end`, false when the body closes. */
async function* readMessages(
  body: ReadableStream<Uint8Array>,
  touch: () => void,
  state: FollowState,
): AsyncGenerator<SseMessage, boolean> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      touch();
      for (const message of parser.feed(decoder.decode(value, { stream: true }))) {
        if (message.event === 'end') return true;
        if (message.event === 'error') {
          state.reason = `the gateway reported: ${message.data}`;
          continue;
        }
        if (message.id !== undefined) state.lastEventId = message.id;
        state.failures = 0;
        yield message;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** A non-2xx answer: thrown when final (4xx), else its message as the reason to retry (5xx may be a restart). */
async function httpFailure(res: Response, route: string): Promise<string> {
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = apiError(res.status, body, `GET ${route}`);
  if (res.status < 500) throw error;
  return error.message;
}

function errorReason(err: unknown): string {
  return err instanceof Error
    ? (err.cause instanceof Error ? err.cause.message : err.message) || err.name
    : String(err);
}

function timeoutError(route: string): CliError {
  return new CliError('timeout', 'TIMEOUT', `stopped following ${route}: the wait bound ran out`);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
