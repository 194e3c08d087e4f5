/** What a chat request asks for: tools offered → `tools`; a `response_format` → `structured`; else `text`. */
export type FakeRequestKind = 'structured' | 'tools' | 'text';

/** One request the fake server received (authorization header removed). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly endpoint: 'chat' | 'embeddings' | 'models' | 'other';
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body (`undefined` for GET, or the raw text when it was not JSON). */
  readonly body: unknown;
  /** Chat requests only. */
  readonly kind?: FakeRequestKind;
  /** `response_format.json_schema.name` of a structured request in json_schema mode. */
  readonly schemaName?: string;
  /** Names of the tools offered. */
  readonly toolNames?: readonly string[];
  /** Whether a handler answered it (false: it got a 500 and is also in `unmatched`). */
  readonly matched: boolean;
}

/** Which chat requests a handler answers. Every given field must match; an empty match answers anything. */
export interface FakeMatch {
  /** Which endpoint (default `chat`). Embedding handlers may only answer with `status` or `delayMs` replies. */
  readonly endpoint?: 'chat' | 'embeddings';
  readonly kind?: FakeRequestKind;
  readonly schemaName?: string;
  /** The exact set of offered tool names (order ignored), or a predicate over them. */
  readonly toolNames?: readonly string[] | ((names: readonly string[]) => boolean);
  /** The requested model name. */
  readonly model?: string;
  /** Anything else, over the recorded request. */
  readonly where?: (request: RecordedRequest) => boolean;
}

/** A tool call the fake model makes. `arguments` is JSON-encoded unless it is already a string (to send bad JSON). */
export interface FakeToolCall {
  readonly name: string;
  readonly arguments: unknown;
  readonly id?: string;
}

/**
 * How a streamed answer ends: normally, normally but without the usage chunk (a server that ignores
 * `stream_options.include_usage`), by stalling with the response left open, or by cutting the connection.
 */
export type FakeStreamEnd = 'done' | 'no_usage' | 'hang' | 'drop';

/**
 * How the fake model answers. A request with `stream: true` gets the same reply as `chat.completion.chunk` events
 * (text in word-sized pieces unless `chunks` gives them, usage in a last chunk); a non-streamed request gets a
 * `chunks` reply as one text.
 */
export type FakeReply =
  /** `content` = JSON.stringify(json). */
  | { readonly json: unknown }
  /** Raw content (for prose, or for output that is not valid JSON). */
  | { readonly text: string }
  | { readonly toolCalls: readonly FakeToolCall[]; readonly content?: string }
  | { readonly refusal: string }
  /**
   * Exactly these text pieces (then tool calls, if any), ending as `end` says (default `done`); streamed, a pause of
   * `gapMs` precedes every piece after the first (a slow model that keeps writing).
   */
  | {
      readonly chunks: readonly string[];
      readonly toolCalls?: readonly FakeToolCall[];
      readonly end?: FakeStreamEnd;
      readonly gapMs?: number;
    }
  /** An HTTP error in OpenAI's error shape. */
  | { readonly status: number; readonly message?: string; readonly code?: string; readonly type?: string }
  /** Answer `then` once `after` settles (a test holds the answer until it is ready for what follows). */
  | { readonly after: Promise<unknown>; readonly then: FakeReply }
  /** Wait, then answer `then` (default: never answer; the client's timeout or abort ends it). */
  | { readonly delayMs: number; readonly then?: FakeReply };

/** Token counts to report; estimated from the text lengths when absent. */
export interface FakeUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface FakeHandler {
  readonly match?: FakeMatch;
  /** A reply, or a function of the request (e.g. to echo part of the prompt). */
  readonly reply: FakeReply | ((request: RecordedRequest) => FakeReply);
  /** How many requests it answers before it is used up (default 1); `Infinity` for "always". */
  readonly times?: number;
  readonly usage?: FakeUsage;
}

export interface FakeOpenAIServerOptions {
  /** Length of embedding vectors when the request has no `dimensions` (default 16). */
  readonly embeddingDimensions?: number;
  /** Ids listed by `GET /v1/models` (default `['fake-model']`). */
  readonly models?: readonly string[];
}
