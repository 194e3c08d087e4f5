import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { SCHEMA_VERSION, Streams, Subjects, TraceEvent } from '@novelrag/contracts';

type WithoutEnvelope<T> = T extends unknown
  ? Omit<T, 'schemaVersion' | 'seq' | 'at'> & { at?: string }
  : never;
/** A trace event as producers write it: the publisher adds schemaVersion, the per-goal seq and the time. */
export type TraceDraft = WithoutEnvelope<TraceEvent>;

export interface TracePublisherOptions {
  /** Stream and subject root overrides (tests). */
  readonly stream?: string;
  readonly subjectOf?: (goalId: string, kind: string) => string;
  readonly goalFilter?: (goalId: string) => string;
  readonly timeoutMs?: number;
}

/**
 * Publishes trace events to JetStream (TRACE captures them) with a gap-free per-goal `seq`. After a crash the next
 * instance calls `resume(goalId)`, which reads the goal's last stored event so numbering continues; each event's
 * `Nats-Msg-Id` is `<goalId>:<seq>`, so re-publishing after a retry is de-duplicated by the stream.
 * `publish` validates the event against the contract first and rejects (never publishes) an invalid one.
 */
export class TracePublisher {
  private readonly next = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: TracePublisherOptions = {},
  ) {}

  async resume(goalId: string): Promise<number> {
    const consumer = await jetstream(this.nc).consumers.get(this.options.stream ?? Streams.trace.name, {
      filter_subjects: (this.options.goalFilter ?? Subjects.traceOfGoal)(goalId),
      deliver_policy: DeliverPolicy.Last,
    });
    // A new goal has no stored event: ask the consumer first instead of waiting out a pull's expiry (it cost ~1 s at
    // every goal's first event).
    const { num_pending: pending } = await consumer.info(true);
    const last = pending > 0 ? await consumer.next({ expires: 1_000 }) : null;
    let seq = 0;
    if (last) {
      const parsed = TraceEvent.safeParse(last.json());
      seq = parsed.success ? parsed.data.seq + 1 : 0;
    }
    await consumer.delete().catch(() => undefined);
    this.next.set(goalId, seq);
    return seq;
  }

  async publish(draft: TraceDraft): Promise<TraceEvent> {
    const seq = this.next.get(draft.goalId) ?? (await this.resume(draft.goalId));
    const event = TraceEvent.parse({
      ...draft,
      schemaVersion: SCHEMA_VERSION,
      seq,
      at: draft.at ?? new Date().toISOString(),
    });
    const subject = (this.options.subjectOf ?? Subjects.trace)(event.goalId, event.kind);
    await jetstream(this.nc, { timeout: this.options.timeoutMs ?? 5_000 }).publish(
      subject,
      JSON.stringify(event),
      {
        msgID: `${event.goalId}:${seq}`,
      },
    );
    this.next.set(draft.goalId, seq + 1);
    return event;
  }

  /** Forget a finished goal's counter. */
  forget(goalId: string): void {
    this.next.delete(goalId);
  }
}
