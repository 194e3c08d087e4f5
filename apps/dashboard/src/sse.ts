import { authHeaders } from './api';

/**
 * Server-Sent Events over fetch() streaming: the API key goes in the Authorization header (EventSource cannot send
 * one, and a key in the URL would end up in logs). Reconnects with Last-Event-ID after a dropped connection, so no
 * event is lost or repeated; stops at the server's `end` event, on a client error (4xx) or when `signal` aborts.
 */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}
export type SseState = 'connecting' | 'open' | 'reconnecting' | 'ended' | 'failed';

export interface SseOptions {
  readonly url: string;
  readonly signal: AbortSignal;
  readonly onMessage: (message: SseMessage) => void;
  readonly onState?: (state: SseState, detail?: string) => void;
  /** Resume after this event id. */
  readonly lastEventId?: string;
}

const MAX_RETRY_MS = 30_000;

export async function followSse(options: SseOptions): Promise<void> {
  let last = options.lastEventId;
  let retryMs = 2_000;
  let failures = 0;
  while (!options.signal.aborted) {
    options.onState?.(failures === 0 ? 'connecting' : 'reconnecting');
    try {
      const res = await fetch(options.url, {
        headers: {
          ...authHeaders(),
          accept: 'text/event-stream',
          ...(last ? { 'last-event-id': last } : {}),
        },
        signal: options.signal,
        cache: 'no-store',
      });
      if (res.status >= 400 && res.status < 500) {
        const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
        options.onState?.('failed', `${body.code ?? res.status}: ${body.message ?? res.statusText}`);
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      options.onState?.('open');
      failures = 0;
      const ended = await readStream(
        res.body,
        (m) => {
          if (m.id) last = m.id;
          options.onMessage(m);
        },
        (ms) => (retryMs = ms),
      );
      if (ended) {
        options.onState?.('ended');
        return;
      }
    } catch (err) {
      if (options.signal.aborted) return;
      failures++;
      options.onState?.('reconnecting', err instanceof Error ? err.message : String(err));
    }
    await pause(Math.min(MAX_RETRY_MS, retryMs * Math.max(1, failures)), options.signal);
  }
}

/** Reads SSE blocks until the stream closes; true when the server sent `event: end`. */
async function readStream(
  body: ReadableStream<Uint8Array>,
  onMessage: (m: SseMessage) => void,
  onRetry: (ms: number) => void,
): Promise<boolean> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return false;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const message = parseBlock(block, onRetry);
      if (!message) continue;
      if (message.event === 'end') {
        await reader.cancel();
        return true;
      }
      onMessage(message);
    }
  }
}

function parseBlock(block: string, onRetry: (ms: number) => void): SseMessage | null {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id') id = value;
    else if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
    else if (name === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  }
  return data.length === 0 && event === 'message' ? null : { id, event, data: data.join('\n') };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
