import { CancelledError } from '../errors/errors';
import type { ExecutionContext } from '../execution/execution-context';
import type { SchematicTool, ToolHints } from '../tool/schematic-tool';
import { toolError, toolResult, type ToolOutput } from '../tool/tool-output';
import { deferred, type Deferred } from './deferred';

type Params = Readonly<Record<string, unknown>>;

export interface FakeToolOptions {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly prerequisites?: string;
  readonly outputDescription?: string;
  readonly timeoutMs?: number;
  readonly hints?: ToolHints;
  /** Success text, or a function of the params (may use the context, e.g. to `confirm`). */
  readonly result?: string | ((params: Params, ctx: ExecutionContext) => string | Promise<string>);
  /** Return a ToolOutput error instead. */
  readonly error?: string | { readonly message: string; readonly code: string };
  /** Throw this instead (an Error, or a message for a plain Error). */
  readonly throws?: unknown;
  /** The call waits for this promise before answering (the test controls the delay). */
  readonly until?: Promise<unknown>;
  /** Whether the call rejects with `CancelledError` when its signal aborts while waiting (default true). */
  readonly honourSignal?: boolean;
}

/** What a `FakeTool` saw. */
export interface FakeToolCall {
  readonly params: Params;
  readonly signal: AbortSignal;
}

/**
 * A scripted `SchematicTool` for tests (`@novelrag/agenturn/testing`). Records its calls; `whenCalled(n)` resolves
 * when the n-th call has started, so a test can cancel or advance a clock exactly while the tool runs.
 */
export class FakeTool implements SchematicTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly prerequisites?: string;
  readonly outputDescription?: string;
  readonly timeoutMs?: number;
  readonly hints?: ToolHints;
  readonly calls: FakeToolCall[] = [];
  private readonly started: Deferred<FakeToolCall>[] = [];

  constructor(private readonly options: FakeToolOptions) {
    this.name = options.name;
    this.description = options.description ?? `fake tool ${options.name}`;
    this.inputSchema = options.inputSchema ?? { type: 'object', properties: {}, additionalProperties: true };
    if (options.prerequisites !== undefined) this.prerequisites = options.prerequisites;
    if (options.outputDescription !== undefined) this.outputDescription = options.outputDescription;
    if (options.timeoutMs !== undefined) this.timeoutMs = options.timeoutMs;
    if (options.hints !== undefined) this.hints = options.hints;
  }

  whenCalled(n = 1): Promise<FakeToolCall> {
    return this.startedAt(n - 1).promise;
  }

  async call(ctx: ExecutionContext, params: Params, signal: AbortSignal): Promise<ToolOutput> {
    const call = { params, signal };
    this.calls.push(call);
    this.startedAt(this.calls.length - 1).resolve(call);
    if (this.options.until !== undefined) {
      if (this.options.honourSignal === false) await this.options.until;
      else await Promise.race([this.options.until, rejectOnAbort(signal)]);
    }
    if (this.options.throws !== undefined) {
      throw typeof this.options.throws === 'string' ? new Error(this.options.throws) : this.options.throws;
    }
    const error = this.options.error;
    if (error !== undefined)
      return typeof error === 'string' ? toolError(error) : toolError(error.message, error.code);
    const result = this.options.result;
    return toolResult(
      typeof result === 'function' ? await result(params, ctx) : (result ?? `${this.name} done`),
    );
  }

  private startedAt(index: number): Deferred<FakeToolCall> {
    while (this.started.length <= index) this.started.push(deferred<FakeToolCall>());
    return this.started[index] as Deferred<FakeToolCall>;
  }
}

export function fakeTool(options: FakeToolOptions): FakeTool {
  return new FakeTool(options);
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new CancelledError(`tool call aborted`, { cause: signal.reason }));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
