import type { ExecutionContext, InteractionOptions } from '../execution/execution-context';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error' | 'output';

export type RecordedEvent =
  | { readonly kind: LogLevel; readonly message: string }
  | { readonly kind: 'progress'; readonly key: string; readonly value: string; readonly description?: string }
  | {
      readonly kind: 'backlog';
      readonly content: Readonly<Record<string, unknown>>;
      readonly priority?: number;
    }
  | {
      readonly kind: 'confirm';
      readonly message: string;
      readonly answer: boolean;
      readonly timeoutMs?: number;
    }
  | {
      readonly kind: 'request';
      readonly prompt: string;
      readonly answer: string | null;
      readonly timeoutMs?: number;
    };

export interface RecordingExecutionContextOptions {
  /** Answers to `confirm`, in order, or a function of the message. When exhausted: false (silence means no). */
  readonly confirmAnswers?: readonly boolean[] | ((message: string) => boolean | Promise<boolean>);
  /** Answers to `request`, in order, or a function of the prompt. When exhausted: null. */
  readonly requestAnswers?:
    readonly (string | null)[] | ((prompt: string) => string | null | Promise<string | null>);
}

/**
 * Test double of `ExecutionContext` (`@novelrag/agenturn/testing`): records every call in order and answers human
 * interactions from the given answers. `waitFor` lets a test await an event instead of sleeping.
 */
export class RecordingExecutionContext implements ExecutionContext {
  readonly events: RecordedEvent[] = [];
  private readonly confirmQueue: boolean[];
  private readonly requestQueue: (string | null)[];
  private readonly waiters: {
    predicate: (e: RecordedEvent) => boolean;
    resolve: (e: RecordedEvent) => void;
  }[] = [];

  constructor(private readonly options: RecordingExecutionContextOptions = {}) {
    this.confirmQueue = Array.isArray(options.confirmAnswers)
      ? [...(options.confirmAnswers as boolean[])]
      : [];
    this.requestQueue = Array.isArray(options.requestAnswers)
      ? [...(options.requestAnswers as (string | null)[])]
      : [];
  }

  debug(message: string): void {
    this.record({ kind: 'debug', message });
  }
  info(message: string): void {
    this.record({ kind: 'info', message });
  }
  warning(message: string): void {
    this.record({ kind: 'warning', message });
  }
  error(message: string): void {
    this.record({ kind: 'error', message });
  }
  output(message: string): void {
    this.record({ kind: 'output', message });
  }

  async confirm(message: string, options: InteractionOptions = {}): Promise<boolean> {
    const source = this.options.confirmAnswers;
    const answer =
      typeof source === 'function' ? await source(message) : (this.confirmQueue.shift() ?? false);
    this.record({ kind: 'confirm', message, answer, ...timeout(options) });
    return answer;
  }

  async request(prompt: string, options: InteractionOptions = {}): Promise<string | null> {
    const source = this.options.requestAnswers;
    const answer = typeof source === 'function' ? await source(prompt) : (this.requestQueue.shift() ?? null);
    this.record({ kind: 'request', prompt, answer, ...timeout(options) });
    return answer;
  }

  progress(key: string, value: string, description?: string): void {
    this.record({ kind: 'progress', key, value, ...(description === undefined ? {} : { description }) });
  }

  backlog(content: Readonly<Record<string, unknown>>, priority?: number): void {
    this.record({ kind: 'backlog', content, ...(priority === undefined ? {} : { priority }) });
  }

  /** Messages logged at `level`, in order. */
  messages(level: LogLevel): string[] {
    return this.events.flatMap((e) => (e.kind === level ? [e.message] : []));
  }

  /** Resolves with the first event (already recorded or future) that matches. */
  waitFor(predicate: (event: RecordedEvent) => boolean): Promise<RecordedEvent> {
    const found = this.events.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  private record(event: RecordedEvent): void {
    this.events.push(event);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i];
      if (waiter !== undefined && waiter.predicate(event)) {
        this.waiters.splice(i, 1);
        waiter.resolve(event);
      }
    }
  }
}

function timeout(options: InteractionOptions): { timeoutMs?: number } {
  return options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
}
