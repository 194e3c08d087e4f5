import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { ResourcesChanged, Streams, Subjects, TraceEvent } from '@novelrag/contracts';

/** A trace event as heard live on the bus, with the time this process received it. */
export interface HeardEvent {
  readonly event: TraceEvent;
  readonly heardAt: number;
}

/** A committed write as announced by the resource-service on `novelrag.resources.changed`. */
export interface HeardWrite {
  readonly change: ResourcesChanged;
  readonly heardAt: number;
}

/**
 * Listens to the whole system on the bus: every trace event (live, for takeover times and the "human") and every
 * committed write (`resources.changed`, the resource-service's own announcement, one per applied write).
 */
export class BusObserver {
  readonly events: HeardEvent[] = [];
  readonly writes: HeardWrite[] = [];
  private readonly subs: Subscription[] = [];
  private readonly listeners: ((e: TraceEvent) => void)[] = [];

  constructor(private readonly nc: NatsConnection) {
    this.subs.push(
      nc.subscribe(Subjects.traceAll, {
        callback: (err, msg) => {
          if (err) return;
          const parsed = TraceEvent.safeParse(msg.json());
          if (!parsed.success) return;
          this.events.push({ event: parsed.data, heardAt: Date.now() });
          for (const l of this.listeners) l(parsed.data);
        },
      }),
      nc.subscribe(Subjects.resourcesChanged, {
        callback: (err, msg) => {
          if (err) return;
          const parsed = ResourcesChanged.safeParse(msg.json());
          if (parsed.success) this.writes.push({ change: parsed.data, heardAt: Date.now() });
        },
      }),
    );
  }

  onEvent(listener: (e: TraceEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Makes sure both subscriptions are registered with the server before anything happens. */
  async ready(): Promise<void> {
    await this.nc.flush();
  }

  close(): void {
    for (const s of this.subs) s.unsubscribe();
  }
}

/** Every event of a goal as the TRACE stream stores it (what a replay serves), in stream order. */
export async function storedTrace(nc: NatsConnection, goalId: string): Promise<TraceEvent[]> {
  const consumer = await jetstream(nc).consumers.get(Streams.trace.name, {
    filter_subjects: Subjects.traceOfGoal(goalId),
    deliver_policy: DeliverPolicy.All,
  });
  const out: TraceEvent[] = [];
  try {
    const { num_pending: pending } = await consumer.info(true);
    let left = pending;
    while (left > 0) {
      const batch = await consumer.fetch({ max_messages: Math.min(left, 500), expires: 5_000 });
      let got = 0;
      for await (const msg of batch) {
        got++;
        const parsed = TraceEvent.safeParse(msg.json());
        if (parsed.success) out.push(parsed.data);
      }
      if (got === 0) break;
      left -= got;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return out;
}
