import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { FINAL_TRACE_KINDS, Streams, TraceEvent } from '@novelrag/contracts';
import { Metrics } from '@novelrag/telemetry';

export interface TraceItem {
  /** The TRACE stream sequence: the SSE event id, resumable with Last-Event-ID. */
  readonly id: number;
  readonly event: TraceEvent;
}

export interface TraceReadOptions {
  readonly subject: string;
  /** Resume after this stream sequence (Last-Event-ID); from the beginning when absent. */
  readonly after?: number;
  /** Only events stored from now on (ignored when `after` is set). */
  readonly fromNow?: boolean;
  readonly signal: AbortSignal;
  /** Stop after a final event (goal.completed/failed/cancelled) when set. */
  readonly untilFinal: boolean;
  readonly stream?: string;
}

/**
 * Replays the TRACE stream for a subject filter from a sequence, then follows it live, as an async iterable (SSE is
 * only the edge). Events that do not parse are skipped (a newer producer's kinds are ignored, never fatal) and counted
 * (`novelrag_trace_events_skipped_total`).
 */
export async function* readTrace(nc: NatsConnection, options: TraceReadOptions): AsyncGenerator<TraceItem> {
  const consumer = await jetstream(nc).consumers.get(options.stream ?? Streams.trace.name, {
    filter_subjects: options.subject,
    ...(options.after !== undefined
      ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: options.after + 1 }
      : { deliver_policy: options.fromNow ? DeliverPolicy.New : DeliverPolicy.All }),
  });
  const messages = await consumer.consume({ max_messages: 256 });
  const stop = () => messages.stop();
  options.signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const msg of messages) {
      let parsed: TraceEvent | undefined;
      try {
        const result = TraceEvent.safeParse(msg.json());
        if (result.success) parsed = result.data;
      } catch {
        parsed = undefined;
      }
      if (!parsed) {
        Metrics.traceEventsSkipped.inc();
        continue;
      }
      yield { id: msg.seq, event: parsed };
      if (options.untilFinal && FINAL_TRACE_KINDS.includes(parsed.kind)) return;
    }
  } finally {
    options.signal.removeEventListener('abort', stop);
    messages.stop();
  }
}
