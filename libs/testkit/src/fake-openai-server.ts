import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletion, embeddingsResponse, errorBody, estimateTokens } from './fake-openai-responses';
import { describe, isObject, type Json, matches, parseRequest } from './fake-openai-requests';
import { piecesOf, sendStream } from './fake-openai-stream';
import type {
  FakeHandler,
  FakeMatch,
  FakeOpenAIServerOptions,
  FakeReply,
  FakeRequestKind,
  FakeUsage,
  RecordedRequest,
} from './fake-openai-types';

interface ActiveHandler {
  readonly handler: FakeHandler;
  remaining: number;
}

/**
 * An OpenAI-compatible HTTP server on 127.0.0.1 for tests that exercise the real SDK: `POST /v1/chat/completions`,
 * `POST /v1/embeddings`, `GET /v1/models`.
 *
 * Chat requests are answered by scripted handlers, first match wins, each used `times` times (default once). A chat
 * request no handler matches gets a 500 (marked not retryable for the SDK) and is recorded in `unmatched`;
 * `assertDone()` fails on those and on handlers left unused, so a test sees both unexpected and missing calls.
 * Embeddings answer deterministic hashed vectors unless a handler for `endpoint: 'embeddings'` says otherwise.
 * Chat requests with `stream: true` are answered as server-sent chunks (see `FakeReply`).
 */
export class FakeOpenAIServer {
  /** Every request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** Chat requests no handler matched. */
  readonly unmatched: RecordedRequest[] = [];
  private readonly handlers: ActiveHandler[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  private server: Server | undefined;
  private port = 0;

  constructor(private readonly options: FakeOpenAIServerOptions = {}) {}

  /** Creates and starts a server. */
  static async start(options: FakeOpenAIServerOptions = {}): Promise<FakeOpenAIServer> {
    return new FakeOpenAIServer(options).start();
  }

  /** `http://127.0.0.1:<port>/v1`, the SDK's `baseURL`. */
  get baseURL(): string {
    if (!this.server) throw new Error('FakeOpenAIServer is not started');
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<this> {
    if (this.server) return this;
    const server = createServer((req, res) => {
      this.onRequest(req, res).catch((err: unknown) => {
        if (!res.headersSent) this.send(res, 500, errorBody(`FakeOpenAIServer failed: ${String(err)}`));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Stops at once: pending delays are cancelled and open connections (keep-alive included) are dropped. */
  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Adds a handler (after the existing ones). */
  handle(handler: FakeHandler): this {
    this.handlers.push({ handler, remaining: handler.times ?? 1 });
    return this;
  }

  /** Answers the next matching request once. */
  once(match: FakeMatch, reply: FakeHandler['reply'], usage?: FakeUsage): this {
    return this.handle({ match, reply, times: 1, ...(usage ? { usage } : {}) });
  }

  /** Answers every matching request. */
  always(match: FakeMatch, reply: FakeHandler['reply'], usage?: FakeUsage): this {
    return this.handle({ match, reply, times: Number.POSITIVE_INFINITY, ...(usage ? { usage } : {}) });
  }

  /** Chat requests only, optionally of one kind. */
  chatRequests(kind?: FakeRequestKind): RecordedRequest[] {
    return this.requests.filter((r) => r.endpoint === 'chat' && (kind === undefined || r.kind === kind));
  }

  /** Resolves once `count` requests (of any endpoint) have arrived, e.g. to abort a call while it is in flight. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Handlers with a finite number of uses that were not all used. */
  pendingHandlers(): FakeHandler[] {
    return this.handlers.filter((h) => h.remaining > 0 && Number.isFinite(h.remaining)).map((h) => h.handler);
  }

  /** Throws when a chat request was unmatched or a finite handler is left over. */
  assertDone(): void {
    const problems: string[] = [];
    if (this.unmatched.length > 0)
      problems.push(`unmatched requests: ${this.unmatched.map(describe).join('; ')}`);
    const pending = this.pendingHandlers();
    if (pending.length > 0) problems.push(`${pending.length} scripted handler(s) never used`);
    if (problems.length > 0) throw new Error(`FakeOpenAIServer: ${problems.join('; ')}`);
  }

  /** Forgets handlers and recorded requests (between tests sharing one server). */
  reset(): void {
    this.handlers.length = 0;
    this.requests.length = 0;
    this.unmatched.length = 0;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const described = await parseRequest(req);
    const found = this.handlers.find(
      (h) => h.remaining > 0 && matches(h.handler.match, { ...described, matched: true }),
    );
    const record: RecordedRequest = {
      ...described,
      matched: found !== undefined || described.endpoint !== 'chat',
    };
    this.record(record);
    switch (record.endpoint) {
      case 'models':
        this.send(res, 200, {
          object: 'list',
          data: (this.options.models ?? ['fake-model']).map((id) => ({
            id,
            object: 'model',
            created: 0,
            owned_by: 'fake',
          })),
        });
        return;
      case 'other':
        this.send(
          res,
          404,
          errorBody(
            `FakeOpenAIServer does not serve ${record.method} ${record.path}`,
            'invalid_request_error',
          ),
        );
        return;
      case 'chat':
      case 'embeddings':
        this.reply(res, record, found);
    }
  }

  /** Keeps the request and wakes the waiters whose count is reached. */
  private record(record: RecordedRequest): void {
    this.requests.push(record);
    for (const w of this.waiters.filter((w) => this.requests.length >= w.count)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
  }

  /** Answers a chat or embeddings request with its handler (default vectors for embeddings, else a 500). */
  private reply(res: ServerResponse, record: RecordedRequest, found: ActiveHandler | undefined): void {
    if (!found) {
      if (record.endpoint === 'embeddings') {
        this.answer(res, record, { text: '' }, undefined);
        return;
      }
      this.unmatched.push(record);
      // Not retryable for the SDK: a missing script entry will not appear on retry.
      this.send(res, 500, errorBody(`FakeOpenAIServer: no handler matches this ${describe(record)}`), {
        'x-should-retry': 'false',
      });
      return;
    }
    found.remaining -= 1;
    const reply =
      typeof found.handler.reply === 'function' ? found.handler.reply(record) : found.handler.reply;
    this.answer(res, record, reply, found.handler.usage);
  }

  private answer(
    res: ServerResponse,
    record: RecordedRequest,
    reply: FakeReply,
    usage: FakeUsage | undefined,
  ): void {
    if ('after' in reply) {
      const go = () => (res.destroyed ? undefined : this.answer(res, record, reply.then, usage));
      void reply.after.then(go, go);
      return;
    }
    if ('delayMs' in reply) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        // Without `then` the request hangs until the client gives up or the server closes.
        if (reply.then && !res.destroyed) this.answer(res, record, reply.then, usage);
      }, reply.delayMs);
      this.timers.add(timer);
      res.once('close', () => {
        clearTimeout(timer);
        this.timers.delete(timer);
      });
      return;
    }
    if ('status' in reply) {
      this.send(
        res,
        reply.status,
        errorBody(reply.message ?? `scripted HTTP ${reply.status}`, reply.type, reply.code ?? null),
      );
      return;
    }
    const body = isObject(record.body) ? record.body : {};
    const model = typeof body['model'] === 'string' ? body['model'] : 'fake-model';
    if (record.endpoint === 'embeddings') {
      const input = body['input'];
      const inputs = Array.isArray(input) ? input.map(String) : [String(input ?? '')];
      const dimensions =
        typeof body['dimensions'] === 'number'
          ? body['dimensions']
          : (this.options.embeddingDimensions ?? 16);
      this.send(
        res,
        200,
        embeddingsResponse(model, inputs, dimensions, body['encoding_format'] === 'base64'),
      );
      return;
    }
    const promptTokens = usage?.promptTokens ?? estimateTokens(JSON.stringify(body['messages'] ?? ''));
    let content: string | null = null;
    let completion: Json;
    if ('json' in reply) content = JSON.stringify(reply.json);
    else if ('text' in reply) content = reply.text;
    else if ('chunks' in reply) content = reply.chunks.join('');
    else if ('toolCalls' in reply) content = reply.content ?? null;
    const completionTokens = usage?.completionTokens ?? estimateTokens(content ?? JSON.stringify(reply));
    const tokens = { promptTokens, completionTokens };
    if (body['stream'] === true) {
      sendStream(res, {
        model,
        pieces: 'chunks' in reply ? reply.chunks : piecesOf(content),
        usage: tokens,
        ...('refusal' in reply ? { refusal: reply.refusal } : {}),
        ...('toolCalls' in reply && reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
        ...('end' in reply && reply.end ? { end: reply.end } : {}),
        ...('gapMs' in reply && reply.gapMs ? { gapMs: reply.gapMs } : {}),
      });
      return;
    }
    if ('refusal' in reply) {
      completion = chatCompletion({ model, content: null, refusal: reply.refusal, usage: tokens });
    } else if ('toolCalls' in reply && reply.toolCalls) {
      completion = chatCompletion({ model, content, toolCalls: reply.toolCalls, usage: tokens });
    } else {
      completion = chatCompletion({ model, content, usage: tokens });
    }
    this.send(res, 200, completion);
  }

  private send(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    if (res.destroyed || res.headersSent) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }
}
