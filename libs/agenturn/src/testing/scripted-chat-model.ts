import { CancelledError } from '../errors/errors';
import type {
  ChatCallOptions,
  ChatModel,
  ChatResult,
  ChatStream,
  StreamCallOptions,
  StructuredCallOptions,
  ToolCallOptions,
  ToolCallReply,
  ToolCallRequest,
  ToolChoice,
} from '../model/chat-model';
import { chatStream } from '../model/chat-stream';

type MaybePromise<T> = T | Promise<T>;

/**
 * One expected model call. `schemaName` / `purpose`, when given, must match the call. `respond` is the answer or a
 * function computing it from the call's options; a function may also throw (e.g. a `ModelOutputError`) to script a
 * failing model.
 */
export type ScriptEntry =
  | {
      readonly kind: 'structured';
      readonly schemaName?: string;
      readonly purpose?: string;
      /** The value (validated with the call's schema) or `(options) => value | Promise<value>`. */
      readonly respond: unknown;
    }
  | {
      readonly kind: 'tools';
      readonly purpose?: string;
      readonly respond: ToolCallReply | ((options: ToolCallOptions) => MaybePromise<ToolCallReply>);
      /**
       * Skip the checks of the reply against the offered tools and the tool choice, to script a model (or adapter) that
       * misbehaves: calls an unknown tool or makes no call although one is required.
       */
      readonly unchecked?: boolean;
    }
  | {
      readonly kind: 'text';
      readonly purpose?: string;
      readonly respond: string | ((options: ChatCallOptions) => MaybePromise<string>);
    }
  | {
      readonly kind: 'stream';
      readonly purpose?: string;
      readonly respond: StreamScript | ((options: StreamCallOptions) => MaybePromise<StreamScript>);
      /** As for `tools`: skip the checks of the tool calls against the offered tools and the tool choice. */
      readonly unchecked?: boolean;
    };

/**
 * A scripted streamed answer: a text (streamed in word-sized pieces, long words cut), or the exact pieces, optionally
 * followed by tool calls. Pieces given as an async iterable let a test pace the stream (e.g. release the next piece
 * only after it saw the previous one).
 */
export type StreamScript =
  | string
  | {
      readonly deltas: readonly string[] | AsyncIterable<string>;
      readonly toolCalls?: readonly ToolCallRequest[];
    };

export type ScriptedCallKind = ScriptEntry['kind'];

/** A call the scripted model received (recorded whether it matched or not). */
export interface ScriptedCall {
  readonly kind: ScriptedCallKind;
  readonly purpose: string;
  readonly schemaName?: string;
  readonly toolNames?: readonly string[];
  readonly messages: ChatCallOptions['messages'];
}

/** The code under test called the model differently from the script, or the script itself is wrong (a test bug). */
export class ScriptMismatchError extends Error {
  override readonly name = 'ScriptMismatchError';
}

/**
 * A strict `ChatModel` that replays a script, FOR TESTS AND CLEARLY LABELLED OFFLINE DEMOS ONLY: it never calls a real
 * model. Each call must match the next script entry (kind, and `schemaName` / `purpose` when the entry names them);
 * otherwise, or when the script is exhausted, the call throws `ScriptMismatchError`. Structured answers are validated
 * against the call's schema and tool-call answers against the offered tools (invalid script data throws too).
 * `assertDone()` fails on leftover entries and re-throws the first mismatch, even one the code under test swallowed.
 * A call whose signal is already aborted rejects with `CancelledError` without consuming an entry.
 */
export class ScriptedChatModel implements ChatModel {
  readonly calls: ScriptedCall[] = [];
  private readonly script: ScriptEntry[];
  private next = 0;
  private firstMismatch: ScriptMismatchError | undefined;

  constructor(script: readonly ScriptEntry[]) {
    this.script = [...script];
  }

  /** Entries not consumed yet. */
  get remaining(): number {
    return this.script.length - this.next;
  }

  async structured<T>(options: StructuredCallOptions<T>): Promise<ChatResult<T>> {
    const entry = this.take(options, { kind: 'structured', schemaName: options.schemaName });
    if (entry.kind !== 'structured') throw this.unreachable();
    const raw: unknown =
      typeof entry.respond === 'function'
        ? await (entry.respond as (o: StructuredCallOptions<T>) => unknown)(options)
        : entry.respond;
    const parsed = options.schema.safeParse(raw);
    if (!parsed.success) {
      throw this.mismatch(
        `script entry #${this.next} answers "${options.schemaName}" with data that does not match its schema: ${parsed.error.message}`,
      );
    }
    return this.result(options, parsed.data, JSON.stringify(raw));
  }

  async callTools(options: ToolCallOptions): Promise<ChatResult<ToolCallReply>> {
    const toolNames = options.tools.map((t) => t.name);
    const entry = this.take(options, { kind: 'tools', toolNames });
    if (entry.kind !== 'tools') throw this.unreachable();
    const reply = typeof entry.respond === 'function' ? await entry.respond(options) : entry.respond;
    if (entry.unchecked !== true) this.checkToolCalls(reply.toolCalls, toolNames, options.toolChoice);
    return this.result(options, reply, JSON.stringify(reply));
  }

  /** Streams the scripted pieces; a signal that aborts between pieces rejects with `CancelledError`. */
  stream(options: StreamCallOptions): ChatStream {
    return chatStream(async (push, signal) => {
      const toolNames = (options.tools ?? []).map((t) => t.name);
      const entry = this.take({ ...options, signal }, { kind: 'stream', toolNames });
      if (entry.kind !== 'stream') throw this.unreachable();
      const script = typeof entry.respond === 'function' ? await entry.respond(options) : entry.respond;
      const deltas = typeof script === 'string' ? streamingPieces(script) : script.deltas;
      const toolCalls = typeof script === 'string' ? [] : (script.toolCalls ?? []);
      if (entry.unchecked !== true) this.checkToolCalls(toolCalls, toolNames, options.toolChoice ?? 'auto');
      let text = '';
      for await (const piece of untilAborted(deltas, signal)) {
        text += piece;
        push(piece);
      }
      const reply: ToolCallReply = { content: text === '' ? null : text, toolCalls };
      return this.result(options, reply, text + JSON.stringify(toolCalls));
    }, options.signal);
  }

  async text(options: ChatCallOptions): Promise<ChatResult<string>> {
    const entry = this.take(options, { kind: 'text' });
    if (entry.kind !== 'text') throw this.unreachable();
    const value = typeof entry.respond === 'function' ? await entry.respond(options) : entry.respond;
    return this.result(options, value, value);
  }

  /** Throws when entries remain, or when any call mismatched (even if the code under test caught that error). */
  assertDone(): void {
    if (this.firstMismatch !== undefined) throw this.firstMismatch;
    if (this.remaining > 0) {
      const left = this.script.slice(this.next).map(describeEntry).join(', ');
      throw new ScriptMismatchError(`scripted model: ${this.remaining} expected call(s) never made: ${left}`);
    }
  }

  private checkToolCalls(
    calls: readonly ToolCallRequest[],
    toolNames: readonly string[],
    choice: ToolChoice,
  ): void {
    for (const call of calls) {
      if (!toolNames.includes(call.name)) {
        throw this.mismatch(
          `script entry #${this.next} calls tool "${call.name}", which was not offered (offered: ${toolNames.join(', ')})`,
        );
      }
    }
    if (choice !== 'auto' && calls.length === 0) {
      throw this.mismatch(`script entry #${this.next} makes no tool call although toolChoice requires one`);
    }
    if (typeof choice === 'object' && calls.some((c) => c.name !== choice.name)) {
      throw this.mismatch(`script entry #${this.next} calls a tool other than the forced "${choice.name}"`);
    }
  }

  private take(
    options: ChatCallOptions,
    actual: { kind: ScriptedCallKind; schemaName?: string; toolNames?: readonly string[] },
  ): ScriptEntry {
    if (options.signal?.aborted)
      throw new CancelledError('model call cancelled', { cause: options.signal.reason });
    this.calls.push({ ...actual, purpose: options.purpose, messages: options.messages });
    const describedActual = describeEntry({ ...actual, purpose: options.purpose });
    const entry = this.script[this.next];
    if (entry === undefined) {
      throw this.mismatch(
        `scripted model: unexpected call ${describedActual} after the script was exhausted (${this.script.length} entries)`,
      );
    }
    const schemaMismatch =
      entry.kind === 'structured' && entry.schemaName !== undefined && entry.schemaName !== actual.schemaName;
    const purposeMismatch = entry.purpose !== undefined && entry.purpose !== options.purpose;
    if (entry.kind !== actual.kind || schemaMismatch || purposeMismatch) {
      throw this.mismatch(
        `scripted model: call #${this.next + 1} expected ${describeEntry(entry)} but got ${describedActual}`,
      );
    }
    this.next += 1;
    return entry;
  }

  private result<T>(options: ChatCallOptions, value: T, rendered: string): ChatResult<T> {
    const promptChars = options.messages.reduce((n, m) => n + m.content.length, 0);
    const promptTokens = Math.ceil(promptChars / 4);
    const completionTokens = Math.ceil(rendered.length / 4);
    return {
      value,
      model: 'scripted',
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      latencyMs: 0,
      attempts: 1,
    };
  }

  private mismatch(message: string): ScriptMismatchError {
    const error = new ScriptMismatchError(message);
    this.firstMismatch ??= error;
    return error;
  }

  private unreachable(): ScriptMismatchError {
    return this.mismatch('scripted model: internal kind mismatch');
  }
}

function describeEntry(e: { kind: ScriptedCallKind; schemaName?: string; purpose?: string }): string {
  const parts: string[] = [e.kind];
  if (e.schemaName !== undefined) parts.push(`schema=${e.schemaName}`);
  if (e.purpose !== undefined) parts.push(`purpose=${e.purpose}`);
  return `{${parts.join(' ')}}`;
}

const MAX_PIECE = 8;

/** A text cut as a model streams it: words with their leading space, long runs (CJK has no spaces) in short pieces. */
export function streamingPieces(text: string): string[] {
  const words = text.match(/\s*\S+|\s+/gu) ?? [];
  return words.flatMap((word) => {
    const chars = Array.from(word);
    const pieces: string[] = [];
    for (let i = 0; i < chars.length; i += MAX_PIECE) pieces.push(chars.slice(i, i + MAX_PIECE).join(''));
    return pieces;
  });
}

/** The pieces of `source` until `signal` aborts (also while waiting for the next piece). */
async function* untilAborted(
  source: readonly string[] | AsyncIterable<string>,
  signal: AbortSignal,
): AsyncGenerator<string> {
  const iterator = (async function* () {
    yield* source;
  })();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new CancelledError('model call cancelled', { cause: signal.reason }));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    void iterator.return(undefined);
  }
}
