import { FINAL_TRACE_KINDS, TraceEvent } from '@novelrag/contracts';
import type { ServiceProcess } from '../service-process';
import { diagnose } from './diagnose';

export interface SseEvent {
  readonly id: string;
  readonly event: TraceEvent;
}

export interface FollowOptions {
  readonly lastEventId?: string;
  /** Stop (and drop the connection) after the event this returns true for. */
  readonly until?: (e: SseEvent) => boolean;
  readonly timeoutMs?: number;
}

/** Opens a goal's SSE; like any SSE client, a 503/504 (the bus busy or reconnecting) is tried again after Retry-After. */
async function openEvents(url: string, goalId: string, lastEventId: string | undefined, signal: AbortSignal) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${url}/v1/goals/${goalId}/events`, {
      headers: lastEventId ? { 'last-event-id': lastEventId } : {},
      signal,
    });
    if ((res.status !== 503 && res.status !== 504) || attempt >= 10) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 1_000 * Number(res.headers.get('retry-after') ?? '1')));
  }
}

/** Reads SSE blocks into `out` until the stream ends, an `end` event, a final trace event or `until`. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  out: SseEvent[],
  until?: (e: SseEvent) => boolean,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      if (field('event') === 'end') return;
      const id = field('id');
      const data = field('data');
      if (!id || !data) continue;
      const item = { id, event: TraceEvent.parse(JSON.parse(data)) };
      out.push(item);
      if (until?.(item) || FINAL_TRACE_KINDS.includes(item.event.kind)) return;
    }
  }
}

/** Follows a goal's SSE at the gateway `url` until its final event (or `until` says stop), bounded. */
export async function followEvents(
  url: string,
  goalId: string,
  options: FollowOptions,
  processes: readonly ServiceProcess[],
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 60_000);
  const out: SseEvent[] = [];
  try {
    const res = await openEvents(url, goalId, options.lastEventId, abort.signal);
    if (!res.ok || !res.body) throw new Error(`SSE answered ${res.status}`);
    await readEvents(res.body, out, options.until);
    return out;
  } catch (err) {
    if (abort.signal.aborted)
      throw new Error(`SSE of ${goalId} did not end in time; got ${out.length} events`);
    throw await diagnose(err, processes);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
