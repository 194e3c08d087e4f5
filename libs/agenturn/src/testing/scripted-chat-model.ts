import { CancelledError } from '../errors/errors';
import type {
  ChatCallOptions,
  ChatModel,
  ChatResult,
  StructuredCallOptions,
  ToolCallOptions,
  ToolCallReply,
} from '../model/chat-model';

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
    if (entry.unchecked === true) return this.result(options, reply, JSON.stringify(reply));
    for (const call of reply.toolCalls) {
      if (!toolNames.includes(call.name)) {
        throw this.mismatch(
          `script entry #${this.next} calls tool "${call.name}", which was not offered (offered: ${toolNames.join(', ')})`,
        );
      }
    }
    const choice = options.toolChoice;
    if (choice !== 'auto' && reply.toolCalls.length === 0) {
      throw this.mismatch(`script entry #${this.next} makes no tool call although toolChoice requires one`);
    }
    if (typeof choice === 'object' && reply.toolCalls.some((c) => c.name !== choice.name)) {
      throw this.mismatch(`script entry #${this.next} calls a tool other than the forced "${choice.name}"`);
    }
    return this.result(options, reply, JSON.stringify(reply));
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
