import type { z } from 'zod';
import { CliError } from './errors';

export interface GatewayClientOptions {
  readonly url: string;
  readonly apiKey?: string | undefined;
  /** Bound on one request (connect + answer). */
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'DELETE';
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string | number | undefined>;
}

/** How often a safe request answered 503/504 is tried again. */
const RETRIES = 3;

/** Network-level failures of fetch (connection refused, DNS, reset) as opposed to HTTP errors. */
function unreachable(url: string, err: unknown): CliError {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new CliError(
    'unreachable',
    'UNREACHABLE',
    `cannot reach the gateway at ${url} (${detail}). Is it running? Start it with \`npm start\`, or set NOVELRAG_URL / --url.`,
  );
}

/**
 * The gateway's REST API as the CLI sees it: JSON in and out, Bearer auth, every request bounded, every answer parsed
 * with the contract's zod schema, every failure a coded CliError.
 */
export class GatewayClient {
  private readonly fetchImpl: typeof fetch;

  constructor(readonly options: GatewayClientOptions) {
    this.fetchImpl = options.fetch ?? fetch;
  }

  get baseUrl(): string {
    return this.options.url;
  }

  authHeaders(): Record<string, string> {
    return this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {};
  }

  url(route: string, query?: RequestOptions['query']): string {
    const u = new URL(`${this.options.url}${route}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  async request<T>(route: string, schema: z.ZodType<T>, options: RequestOptions = {}): Promise<T> {
    const body = await this.raw(route, options);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new CliError(
        'protocol',
        'BAD_RESPONSE',
        `the gateway answered ${route} outside its contract: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
          .join('; ')}`,
      );
    }
    return parsed.data;
  }

  /**
   * A bounded request; returns the parsed JSON body of a 2xx answer (undefined when empty). A 503/504 (the bus busy or
   * reconnecting) is tried again after its Retry-After, at most `RETRIES` times, when a repeat is safe: a GET, or a
   * request carrying an Idempotency-Key.
   */
  async raw(route: string, options: RequestOptions = {}): Promise<unknown> {
    const method = options.method ?? 'GET';
    const repeatable = method === 'GET' || options.headers?.['idempotency-key'] !== undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(route, options);
      } catch (err) {
        const status = err instanceof CliError ? err.status : undefined;
        if (!repeatable || attempt >= RETRIES || (status !== 503 && status !== 504)) throw err;
        const seconds = err instanceof CliError ? err.retryAfterS : undefined;
        await new Promise((r) => setTimeout(r, Math.min(5, seconds ?? 1) * 1_000));
      }
    }
  }

  /**
   * Sends a body as is (an archive) and returns the answer to read as it streams; a non-2xx answer is its coded
   * CliError. Bounded by `timeoutMs` for the whole exchange, body read included.
   */
  async send(
    route: string,
    body: Uint8Array,
    options: { contentType: string; accept: string; query?: RequestOptions['query']; timeoutMs: number },
  ): Promise<Response> {
    const signal = AbortSignal.timeout(options.timeoutMs);
    let res: Response;
    try {
      res = await this.fetchImpl(this.url(route, options.query), {
        method: 'POST',
        signal,
        headers: { accept: options.accept, 'content-type': options.contentType, ...this.authHeaders() },
        body,
      });
    } catch (err) {
      if (signal.aborted)
        throw new CliError(
          'timeout',
          'TIMEOUT',
          `POST ${route} got no answer within ${options.timeoutMs} ms`,
        );
      throw unreachable(this.options.url, err);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      throw apiError(res.status, parsed, `POST ${route}`);
    }
    return res;
  }

  private async once(route: string, options: RequestOptions): Promise<unknown> {
    const method = options.method ?? 'GET';
    const target = this.url(route, options.query);
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(target, {
        method,
        signal,
        headers: {
          accept: 'application/json',
          ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...this.authHeaders(),
          ...options.headers,
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      text = await res.text();
    } catch (err) {
      if (signal.aborted)
        throw new CliError(
          'timeout',
          'TIMEOUT',
          `${method} ${route} got no answer within ${this.options.timeoutMs} ms`,
        );
      throw unreachable(this.options.url, err);
    }
    let body: unknown = undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (!res.ok) {
      const error = apiError(res.status, body, `${method} ${route}`);
      const retryAfter = Number(res.headers.get('retry-after'));
      if (Number.isFinite(retryAfter) && retryAfter >= 0) error.retryAfterS = retryAfter;
      throw error;
    }
    if (text !== '' && body === undefined)
      throw new CliError('protocol', 'BAD_RESPONSE', `${method} ${route} answered with invalid JSON`);
    return body;
  }
}

/** The gateway's `{code, message, details}` as a CliError (or a generic one for a non-conforming body). */
export function apiError(status: number, body: unknown, what: string): CliError {
  if (typeof body === 'object' && body !== null) {
    const b = body as Record<string, unknown>;
    if (typeof b['code'] === 'string' && typeof b['message'] === 'string') {
      const details =
        typeof b['details'] === 'object' && b['details'] !== null
          ? (b['details'] as Record<string, unknown>)
          : undefined;
      return new CliError('api', b['code'], b['message'], details, status);
    }
  }
  return new CliError('api', `HTTP_${status}`, `${what} failed with HTTP ${status}`, undefined, status);
}
