import {
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  FINAL_TRACE_KINDS,
  SCHEMA_VERSION,
  Streams,
  Subjects,
  TraceEvent,
  type TraceKind,
} from '@novelrag/contracts';
import { type Context, activeTraceIds, runInContext } from '@novelrag/telemetry';
import { withTraceHeaders } from '../trace-headers';

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
  /** Delay before the first re-publish of an event whose publish failed (doubled for each further one; default 250). */
  readonly retryDelayMs?: number;
  /**
   * Which events are checked against the TraceEvent contract before they are published (an invalid one is rejected and
   * gets no seq): `true` (default) every event; `'final'` only the final events (`FINAL_TRACE_KINDS`, one per goal:
   * what followers wait for, so one must never be published that readers would skip); `false` none. A producer that
   * builds its events itself from typed data may check only the final ones (the orchestrator does: checking every
   * event was a few per cent of its CPU per goal): what crosses the bus is validated by its readers (the gateway's SSE,
   * the CLI, the test harnesses), which skip an event that does not parse.
   */
  readonly validate?: boolean | 'final';
}

/** A trace event to publish, with the trace context it was written in (its trace and span ids, its headers). */
export interface QueuedTrace {
  readonly draft: TraceDraft;
  readonly context?: Context;
}

/** What `resume` found of a goal's stored trace. */
export interface StoredTrace {
  /** The seq the goal's next event gets. */
  readonly next: number;
  /** The kinds of the goal's stored events (whether its end was traced, for one). */
  readonly kinds: ReadonlySet<TraceKind>;
}

/** Publishes of one event before `publish` gives up (each bounded by `timeoutMs`). */
const PUBLISH_ATTEMPTS = 3;
/** Seqs found taken by other messages, one after another, before `publish` gives up. */
const MAX_TAKEN_SEQS = 3;

/**
 * Publishes trace events to JetStream (TRACE captures them) with a per-goal `seq` (a gap only where an event could not be
 * published at all). After a crash the next instance calls `resume(goalId)`, which reads the goal's newest stored event
 * so numbering continues; each event's `Nats-Msg-Id` is `<goalId>:<seq>`, so re-publishing after a retry is
 * de-duplicated by the stream.
 * `publish` validates the event against the contract first and rejects (never publishes) an invalid one, unless
 * `validate` leaves that kind out. An event written inside a span carries its trace and span id (and the message its `traceparent`
 * header).
 */
export class TracePublisher {
  private readonly next = new Map<string, number>();
  private jsm: JetStreamManager | undefined;
  /** One JetStream client for every publish (building one per event showed in the orchestrator's CPU profile). */
  private js: JetStreamClient | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: TracePublisherOptions = {},
  ) {}

  /**
   * Continues the goal's numbering after its newest stored event, in one round trip: the last message on the goal's
   * subjects (stream order is publish order). Only when that message is not a trace event of the goal (anyone may
   * publish there) does it read the whole stored trace (`resume`).
   */
  /**
   * Numbers a goal known to have nothing stored yet from 0, without reading the stream: a goal's first pickup (its
   * first delivery while still queued; see pickup.ts). The read `continueNumbering` makes (the newest message of the
   * goal's subjects, a wildcard) costs nats-server 2.9 a scan of the whole TRACE stream: about 1 ms at 10 000 stored
   * events, 5 ms at 50 000 and 23 ms at 150 000 on the machine of BENCHMARKS.md, for every goal. Should a message hold
   * a seq after all, the publish finds it taken (a duplicate ack) and moves on, as after `continueNumbering`.
   */
  startNumbering(goalId: string): void {
    this.next.set(goalId, 0);
  }

  async continueNumbering(goalId: string): Promise<number> {
    this.jsm ??= await jetstreamManager(this.nc, { checkAPI: false });
    const last = await this.jsm.streams.getMessage(this.options.stream ?? Streams.trace.name, {
      last_by_subj: (this.options.goalFilter ?? Subjects.traceOfGoal)(goalId),
    });
    const parsed = last ? TraceEvent.safeParse(parseJson(last.data)) : undefined;
    if (parsed && !(parsed.success && parsed.data.goalId === goalId)) return (await this.resume(goalId)).next;
    const next = parsed?.success ? parsed.data.seq + 1 : 0;
    this.next.set(goalId, next);
    return next;
  }

  /**
   * Reads the goal's stored trace so numbering continues after its newest event. It reads the last event of each kind
   * (one subject per kind) rather than only the last message: a message on the goal's subjects that is not a trace
   * event (anyone may publish there) is skipped instead of hiding the real numbering or failing the pursuit.
   */
  async resume(goalId: string): Promise<StoredTrace> {
    const consumer = await jetstream(this.nc).consumers.get(this.options.stream ?? Streams.trace.name, {
      filter_subjects: (this.options.goalFilter ?? Subjects.traceOfGoal)(goalId),
      deliver_policy: DeliverPolicy.LastPerSubject,
    });
    let next = 0;
    const kinds = new Set<TraceKind>();
    try {
      // A new goal has no stored event: ask the consumer first instead of waiting out a fetch's expiry (it cost ~1 s at
      // every goal's first event).
      const { num_pending: pending } = await consumer.info(true);
      if (pending > 0) {
        for await (const msg of await consumer.fetch({ max_messages: pending, expires: 1_000 })) {
          const parsed = TraceEvent.safeParse(parseJson(msg.data));
          if (parsed.success && parsed.data.goalId === goalId) {
            next = Math.max(next, parsed.data.seq + 1);
            kinds.add(parsed.data.kind);
          }
        }
      }
    } finally {
      await consumer.delete().catch(() => undefined);
    }
    this.next.set(goalId, next);
    return { next, kinds };
  }

  /**
   * Publishes one event under the goal's next seq. A failed publish may still have been stored (only its ack was lost),
   * so its seq may be taken: the same event is re-published under the same seq and `Nats-Msg-Id` (a duplicate ack then
   * means the first attempt landed) and the seq advances only once it is acked. When every attempt fails the seq is
   * given up (a gap: never a different event under a seq that may be taken) and the error is thrown. A duplicate ack to
   * a first attempt means another message holds the seq (one published concurrently, or stored after `resume` read the
   * trace): the event then takes the next seq instead of being de-duplicated away.
   */
  async publish(draft: TraceDraft): Promise<TraceEvent> {
    let event = this.eventOf(
      draft,
      this.next.get(draft.goalId) ?? (await this.continueNumbering(draft.goalId)),
    );
    for (let taken = 0; ; taken++) {
      let stored: boolean;
      try {
        stored = await this.store(event);
      } finally {
        this.next.set(event.goalId, event.seq + 1); // used up, whether it now holds this event or not
      }
      if (stored) return event;
      if (taken >= MAX_TAKEN_SEQS) throw new Error(`trace seq ${event.seq} of goal ${event.goalId} is taken`);
      event = { ...event, seq: event.seq + 1 };
    }
  }

  /**
   * Publishes events of ONE goal under consecutive seqs, all sent at once (in order on the connection, so the stream
   * stores them in seq order) and their acks awaited together: one round trip for the lot instead of one each. An
   * event whose first publish failed is re-published under its seq (as `publish` does); an invalid one is rejected
   * without a seq. When a seq was taken by another message, that event and the rest of the lot are published again,
   * one by one, after the lot (an event of the rest that had landed is then stored twice: none is lost, none comes
   * before an event emitted earlier). So is the rest after an event whose first send never arrived and that landed
   * only on its re-publish, behind later events of the lot: the goal's last stored message stays its newest event,
   * which `continueNumbering` relies on. Settles each draft's result in order.
   */
  async publishAll(items: readonly QueuedTrace[]): Promise<PromiseSettledResult<TraceEvent>[]> {
    const results: PromiseSettledResult<TraceEvent>[] = new Array(items.length);
    const goalId = items[0]?.draft.goalId;
    if (goalId === undefined) return results;
    const base = this.next.get(goalId) ?? (await this.continueNumbering(goalId));
    const lot: Lot[] = [];
    items.forEach(({ draft, context }, index) => {
      try {
        if (draft.goalId !== goalId) throw new Error(`trace events of ${draft.goalId} in a lot of ${goalId}`);
        lot.push({ index, context, event: this.eventOf(draft, base + lot.length, context) });
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    });
    this.next.set(goalId, base + lot.length);
    const firsts = await Promise.allSettled(lot.map(({ event, context }) => this.send(event, context)));
    for (const [i, { index, event, context }] of lot.entries()) {
      const first = firsts[i];
      if (first?.status === 'fulfilled' && !first.value) {
        results[index] = { status: 'fulfilled', value: event };
      } else if (first?.status === 'rejected') {
        const again = await settled(this.sendUntilAcked(event, 2, context));
        results[index] = again.status === 'fulfilled' ? { status: 'fulfilled', value: event } : again;
        // Not a lost ack but a lost send: it landed only now, after later events of the lot. Those go again after
        // it, so the goal's last stored message stays its newest event (what a pickup numbers after).
        const landedLater = firsts.slice(i + 1).some((f) => f.status === 'fulfilled' && !f.value);
        if (again.status === 'fulfilled' && !again.value.duplicate && landedLater) {
          await this.republish(lot.slice(i + 1), results);
          break;
        }
      } else {
        // Its seq is taken: it and the rest go after the lot, one by one.
        await this.republish(lot.slice(i), results);
        break;
      }
    }
    return results;
  }

  /** Publishes events of a lot again, one by one, under the goal's next seqs (in their own trace contexts). */
  private async republish(rest: readonly Lot[], results: PromiseSettledResult<TraceEvent>[]): Promise<void> {
    for (const { event, context, index } of rest) {
      const again = () => this.publish(event);
      results[index] = await settled(context ? runInContext(context, again) : again());
    }
  }

  private eventOf(draft: TraceDraft, seq: number, context?: Context): TraceEvent {
    const event = {
      ...activeTraceIds(context),
      ...draft,
      schemaVersion: SCHEMA_VERSION,
      seq,
      at: draft.at ?? now(),
    };
    const validate = this.options.validate ?? true;
    if (validate === true || (validate === 'final' && FINAL_TRACE_KINDS.includes(event.kind))) {
      return TraceEvent.parse(event);
    }
    return event as TraceEvent;
  }

  /** One publish of `event`; resolves to whether the stream reported its msg id as a duplicate. */
  private async send(event: TraceEvent, context?: Context): Promise<boolean> {
    const subject = (this.options.subjectOf ?? Subjects.trace)(event.goalId, event.kind);
    const js = (this.js ??= jetstream(this.nc, { timeout: this.options.timeoutMs ?? 5_000 }));
    const headers = context ? runInContext(context, () => withTraceHeaders()) : withTraceHeaders();
    const ack = await js.publish(subject, JSON.stringify(event), {
      msgID: `${event.goalId}:${event.seq}`,
      ...(headers ? { headers } : {}),
    });
    return ack.duplicate;
  }

  /** Publishes `event` until acked (bounded); false when its seq was already taken by another message. */
  private async store(event: TraceEvent): Promise<boolean> {
    const { duplicate, attempt } = await this.sendUntilAcked(event, 1);
    return !(duplicate && attempt === 1);
  }

  /** Publishes `event` until acked (bounded), counting from `firstAttempt`: whether the acked send was a duplicate. */
  private async sendUntilAcked(
    event: TraceEvent,
    firstAttempt: number,
    context?: Context,
  ): Promise<{ duplicate: boolean; attempt: number }> {
    for (let attempt = firstAttempt; ; attempt++) {
      try {
        return { duplicate: await this.send(event, context), attempt };
      } catch (err) {
        if (attempt >= PUBLISH_ATTEMPTS) throw err;
        await delay((this.options.retryDelayMs ?? 250) * 2 ** (attempt - 1));
      }
    }
  }

  /** Forget a finished goal's counter. */
  forget(goalId: string): void {
    this.next.delete(goalId);
  }
}

function parseJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data)) as unknown;
  } catch {
    return undefined;
  }
}

interface Lot {
  readonly index: number;
  readonly event: TraceEvent;
  readonly context: Context | undefined;
}

function settled<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  return promise.then(
    (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
    (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
  );
}

function now(): string {
  return new Date().toISOString();
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
