/** One Server-Sent Event as read by tests (the raw fields). */
export interface RawSseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * Reads an SSE response until `stopAfter` events, the `end` event or the end of the stream, then cancels the body.
 * Comments and `retry:` blocks are skipped. `onEvent` sees each event as it arrives.
 */
export async function readSse(
  res: Response,
  stopAfter = Infinity,
  onEvent?: (event: RawSseEvent) => void,
): Promise<RawSseEvent[]> {
  if (!res.body) throw new Error(`no response body (HTTP ${res.status})`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const events: RawSseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: RawSseEvent = {};
      for (const line of block.split('\n')) {
        const m = /^(id|event|data): (.*)$/.exec(line);
        if (m) event[m[1] as keyof RawSseEvent] = m[2];
      }
      if (!event.event) continue; // comments, retry
      events.push(event);
      onEvent?.(event);
      if (event.event === 'end' || events.length >= stopAfter) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}
