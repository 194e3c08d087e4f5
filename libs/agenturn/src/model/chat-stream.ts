import { CancelledError, ConfigError } from '../errors/errors';
import type { ChatResult, ChatStream, ToolCallReply } from './chat-model';

/** Hands one piece of streamed text to the reader (empty pieces are dropped). */
export type PushText = (text: string) => void;

/**
 * Produces a streamed answer: pushes the text as it arrives and resolves with the whole reply. `signal` aborts when
 * the caller's signal does or when the reader abandons the stream; the producer must then reject.
 */
export type StreamProducer = (push: PushText, signal: AbortSignal) => Promise<ChatResult<ToolCallReply>>;

/**
 * The `ChatStream` of a producer, for `ChatModel` implementations: the producer starts at once, pieces are buffered
 * until read, and the `ChatStream` contract (one reader, early exit cancels, failures reach both the reader and
 * `result`) is kept here once rather than in every adapter.
 */
export function chatStream(produce: StreamProducer, callerSignal?: AbortSignal): ChatStream {
  return new BufferedChatStream(produce, callerSignal);
}

class BufferedChatStream implements ChatStream {
  readonly result: Promise<ChatResult<ToolCallReply>>;
  private readonly pieces: string[] = [];
  private readonly abandon = new AbortController();
  private ended: { readonly error?: unknown } | undefined;
  private closed = false;
  private iterated = false;
  private wake: (() => void) | undefined;

  constructor(produce: StreamProducer, callerSignal?: AbortSignal) {
    const signal = callerSignal ? AbortSignal.any([callerSignal, this.abandon.signal]) : this.abandon.signal;
    this.result = Promise.resolve()
      .then(() => produce((text) => this.push(text), signal))
      .then(
        (reply) => {
          this.end({});
          return reply;
        },
        (err: unknown) => {
          const error =
            this.abandon.signal.aborted && !(err instanceof CancelledError)
              ? new CancelledError('model stream abandoned by its reader', { cause: err })
              : err;
          this.end({ error });
          throw error;
        },
      );
    // A reader that only iterates still sees the failure; the rejection must not also count as unhandled.
    this.result.catch(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    if (this.iterated) throw new ConfigError('a ChatStream can be read only once');
    this.iterated = true;
    return {
      next: () => this.next(),
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  private push(text: string): void {
    if (this.ended !== undefined || this.closed || text === '') return;
    this.pieces.push(text);
    this.wakeReader();
  }

  private end(how: { readonly error?: unknown }): void {
    this.ended ??= how;
    this.wakeReader();
  }

  private close(): void {
    this.closed = true;
    this.pieces.length = 0;
    if (this.ended === undefined)
      this.abandon.abort(new CancelledError('model stream abandoned by its reader'));
    this.wakeReader();
  }

  private wakeReader(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async next(): Promise<IteratorResult<string>> {
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      const piece = this.pieces.shift();
      if (piece !== undefined) return { done: false, value: piece };
      if (this.ended !== undefined) {
        if ('error' in this.ended) throw this.ended.error;
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
