// The model provider's HTTP transport: a `fetch` for the OpenAI SDK over node:http(s) with keep-alive agents.
//
// Why not the global fetch: undici's fetch drives every request and response through WHATWG streams, which made up
// about a fifth of an orchestrator's CPU in the concurrent-goals benchmark. Over node:http the SDK's chat request costs
// about half the client CPU (openai SDK against the scripted model, 2000 calls 50 at a time: 1.6-2.1 ms per call with
// the global fetch, 1.1-1.3 ms with this one). Behaviour follows fetch where the SDK relies on it: it resolves once
// the headers are in (an event stream is handed over as it arrives; any other body is read whole first), rejects with
// the signal's reason when aborted, with a `TypeError('fetch failed')` carrying the cause when the network fails, and
// decodes gzip/deflate/br bodies. Bodies other than strings and bytes (forms, streams) and redirects go to the global
// fetch.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

type FetchInput = Parameters<typeof fetch>[0];
type FetchInit = NonNullable<Parameters<typeof fetch>[1]>;

/** Statuses a Response may not carry a body with (the Response constructor throws otherwise). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Redirect statuses: fetch follows them (the SDK relies on it), so the request is handed to the global fetch. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Decoders by `content-encoding`, as fetch applies them. */
const DECODERS: Readonly<Record<string, () => NodeJS.ReadWriteStream>> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** The body as node:http can write it, or undefined when only the global fetch can send it. */
function sendableBody(body: FetchInit['body']): string | Uint8Array | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined;
}

/** Plain header lines of `init.headers` (a Headers, pairs or a record). */
function headerRecord(headers: FetchInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** The response's media type, lower-cased (media types are case-insensitive), without its parameters. */
function mediaType(res: http.IncomingMessage): string {
  const [type = ''] = String(res.headers['content-type'] ?? '').split(';', 1);
  return type.trim().toLowerCase();
}

/** The response's headers as a Headers (repeated ones joined, as fetch does). */
function responseHeaders(res: http.IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/** The decoded body stream of a response (undefined: not an encoding fetch decodes; the bytes are passed on). */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder = DECODERS[encoding];
  if (!decoder) return res;
  const stream = decoder();
  res.on('error', (err) => stream.emit('error', err));
  return res.pipe(stream) as unknown as Readable;
}

/** Reads a whole body into one buffer. */
async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The Response of `res`: a stream for `text/event-stream`, otherwise read whole (so the SDK parses a buffer). */
async function toResponse(res: http.IncomingMessage, url: string): Promise<Response> {
  const status = res.statusCode ?? 0;
  const init = { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res) };
  let response: Response;
  if (NULL_BODY_STATUSES.has(status)) {
    res.resume();
    response = new Response(null, init);
  } else if (mediaType(res) === 'text/event-stream') {
    response = new Response(Readable.toWeb(decoded(res)) as ReadableStream<Uint8Array>, init);
  } else {
    response = new Response(await readAll(decoded(res)), init);
  }
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

/** The rejection of an aborted request: the signal's reason, as fetch gives it. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Where Node's built-in proxy support is read from (tests pass their own). */
export interface ProxySettings {
  readonly env?: NodeJS.ProcessEnv;
  readonly execArgv?: readonly string[];
}

/**
 * The environment the agents take their proxy from when Node is told to use the environment's proxy
 * (`NODE_USE_ENV_PROXY=1` or `--use-env-proxy`, as for the global fetch): `HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`.
 * Node's global agents do that themselves; agents built by hand only with `proxyEnv`.
 */
function proxyEnvOf({
  env = process.env,
  execArgv = process.execArgv,
}: ProxySettings): NodeJS.ProcessEnv | undefined {
  const flag = (args: readonly string[]) => args.includes('--use-env-proxy');
  const on = env.NODE_USE_ENV_PROXY === '1' || flag(execArgv) || flag((env.NODE_OPTIONS ?? '').split(/\s+/));
  return on ? env : undefined;
}

/**
 * A `fetch` over node:http/https with one keep-alive agent each (their sockets are reused across calls). Use one per
 * client. Falls back to the global fetch for a `Request` input or a body node:http cannot write as it is. Honours the
 * environment's proxy like the global fetch when Node is told to (`NODE_USE_ENV_PROXY=1`).
 */
export function nodeHttpFetch(proxy: ProxySettings = {}): typeof fetch {
  const proxyEnv = proxyEnvOf(proxy);
  const options = { keepAlive: true, ...(proxyEnv ? { proxyEnv } : {}) };
  const agents = {
    'http:': new http.Agent(options),
    'https:': new https.Agent(options),
  };
  return (async (input: FetchInput, init: FetchInit = {}): Promise<Response> => {
    const body = sendableBody(init.body);
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
    const agent = url ? agents[url.protocol as keyof typeof agents] : undefined;
    if (!url || !agent || body === undefined) return fetch(input, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw abortReason(signal);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const request = transport.request(url, {
        method: init.method ?? 'GET',
        headers: headerRecord(init.headers),
        agent,
      });
      const onAbort = () => request.destroy(abortReason(signal as AbortSignal) as Error);
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      request.on('error', (err) => {
        settle();
        reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: err }));
      });
      request.on('response', (res) => {
        if (REDIRECT_STATUSES.has(res.statusCode ?? 0) && res.headers.location !== undefined) {
          // Rare (a provider moved): fetch applies the redirect rules (method, body, credentials across origins).
          res.resume();
          settle();
          return void fetch(input, init).then(resolve, reject);
        }
        // A stream keeps listening to the signal: aborting it ends the body (fetch does the same).
        res.on('end', settle);
        res.on('error', () => undefined); // surfaced through the body (reading it rejects)
        toResponse(res, url.href).then(resolve, (err: unknown) => {
          settle();
          reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: err }));
        });
      });
      request.end(body ?? undefined);
    });
  }) as typeof fetch;
}
