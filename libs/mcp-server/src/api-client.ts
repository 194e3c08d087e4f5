import { EventSourceParserStream } from 'eventsource-parser/stream';
import { TraceEvent } from '@novelrag/contracts';

export interface NovelragApiOptions {
  /** The gateway, e.g. `http://127.0.0.1:8080` (no trailing slash needed). */
  readonly url: string;
  /** The `Authorization` header value to send (`Bearer <key>`), if any. */
  readonly authorization?: string | undefined;
  /** Bound on one request (not on following a trace). */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** A REST call that did not succeed: the gateway's `{code, message, details?}` with its HTTP status. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

type Query = Record<string, string | number | undefined>;

/** One trace event as the gateway's SSE carries it, with its stream id (for Last-Event-ID). */
export interface TraceItem {
  readonly id: string | undefined;
  readonly event: TraceEvent;
}

/**
 * The gateway's public REST/SSE API as the MCP server uses it: JSON in and out with the caller's own credentials,
 * every request bounded, every failure an ApiCallError. Nothing here reaches the bus.
 */
export class NovelragApi {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: NovelragApiOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...(this.options.authorization ? { authorization: this.options.authorization } : {}),
      ...extra,
    };
  }

  private url(route: string, query: Query = {}): string {
    const u = new URL(`${this.base}${route}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** `GET`/`POST`/`DELETE` with a JSON body; resolves with the parsed JSON answer. */
  async call(
    method: 'GET' | 'POST' | 'DELETE',
    route: string,
    body?: unknown,
    query?: Query,
  ): Promise<unknown> {
    let res: Response;
    try {
      res = await this.fetchImpl(this.url(route, query), {
        method,
        headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new ApiCallError(
        503,
        'UNREACHABLE',
        `cannot reach the NovelRAG gateway at ${this.base} (${reason})`,
      );
    }
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new ApiCallError(res.status, 'PROTOCOL', `the gateway answered ${res.status} with non-JSON`);
    }
    if (!res.ok) {
      const e = (json ?? {}) as { code?: unknown; message?: unknown; details?: unknown };
      throw new ApiCallError(
        res.status,
        typeof e.code === 'string' ? e.code : `HTTP_${res.status}`,
        typeof e.message === 'string' ? e.message : `the gateway answered ${res.status}`,
        e.details,
      );
    }
    return json;
  }

  /**
   * One goal's trace (`GET /v1/goals/:id/events`), replayed from the start (or after `lastEventId`) until its final
   * event; the SSE `error` event becomes an ApiCallError. `signal` ends the follow (the connection is dropped).
   */
  async *trace(goalId: string, signal: AbortSignal, lastEventId?: string): AsyncGenerator<TraceItem> {
    const res = await this.fetchImpl(this.url(`/v1/goals/${encodeURIComponent(goalId)}/events`), {
      headers: this.headers({
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      }),
      signal,
    });
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      let e: { code?: string; message?: string } = {};
      try {
        e = JSON.parse(text) as typeof e;
      } catch {
        // not JSON: the status says enough
      }
      throw new ApiCallError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? 'trace unavailable');
    }
    const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    for await (const message of events) {
      if (message.event === 'end') return;
      if (message.event === 'error') {
        const e = JSON.parse(message.data) as { code?: string; message?: string };
        throw new ApiCallError(503, e.code ?? 'UNAVAILABLE', e.message ?? 'the trace stream failed');
      }
      const parsed = TraceEvent.safeParse(JSON.parse(message.data));
      if (parsed.success) yield { id: message.id, event: parsed.data };
    }
  }
}
