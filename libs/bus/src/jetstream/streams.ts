import type { NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  type JetStreamClient,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { GoalSubmission, Streams, Subjects } from '@novelrag/contracts';
import { BusError } from '../errors';
import { withTraceHeaders } from '../trace-headers';

const ms = (n: number) => n * 1_000_000; // JetStream durations are nanoseconds

export interface StreamNames {
  /** Override for tests (isolated streams on a shared server). */
  readonly goals?: string;
  readonly trace?: string;
  readonly goalSubject?: string;
  readonly traceSubject?: string;
}

/**
 * How a service sets a stream up at boot. The owner (the orchestrator) creates it or updates it to the expected
 * config and creates its consumer; a user (the gateway) only creates it when missing, so its NATS user needs no right
 * to change or delete a stream (an update could shrink the trace to nothing).
 */
export interface EnsureOptions {
  readonly createOnly?: boolean;
}

/** Creates (or, unless `createOnly`, updates to the expected config) a stream; safe to call from every instance. */
async function ensureStream(
  nc: NatsConnection,
  config: Partial<StreamConfig> & { name: string },
  options: EnsureOptions = {},
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info(config.name);
    if (!options.createOnly) await jsm.streams.update(config.name, config);
  } catch (err) {
    if (err instanceof Error && /not found/i.test(err.message)) {
      await jsm.streams.add(config);
      return;
    }
    throw err;
  }
}

/**
 * The `GOALS` work-queue stream and its durable orchestrator consumer. The consumer is created when missing and never
 * reconfigured here: the orchestrator owns its settings (it updates `ack_wait` to `NOVELRAG_GOAL_ACK_WAIT_MS` when it
 * starts pulling), so a gateway booting later must not reset them.
 */
export async function ensureGoalsStream(
  nc: NatsConnection,
  names: StreamNames = {},
  consumer: { ackWaitMs?: number } = {},
  options: EnsureOptions = {},
): Promise<void> {
  const name = names.goals ?? Streams.goals.name;
  await ensureStream(
    nc,
    {
      name,
      subjects: [names.goalSubject ?? Subjects.goalSubmitted],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: ms(Streams.goals.duplicateWindowMs),
    },
    options,
  );
  // A work queue keeps its messages until the consumer (created by its owner) takes them.
  if (options.createOnly) return;
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.consumers.info(name, Streams.goals.consumer);
    return;
  } catch (err) {
    if (!(err instanceof Error && /not found/i.test(err.message))) throw err;
  }
  try {
    await jsm.consumers.add(name, {
      durable_name: Streams.goals.consumer,
      ack_policy: AckPolicy.Explicit,
      ack_wait: ms(consumer.ackWaitMs ?? 60_000),
      max_deliver: -1,
    });
  } catch (err) {
    // Another instance created it between our look and our add: theirs stands.
    if (!(err instanceof Error && /already (exists|in use)/i.test(err.message))) throw err;
  }
}

/** The `TRACE` stream (bounded by age and bytes) that SSE replays from. */
export async function ensureTraceStream(
  nc: NatsConnection,
  names: StreamNames = {},
  options: EnsureOptions = {},
): Promise<void> {
  await ensureStream(
    nc,
    {
      name: names.trace ?? Streams.trace.name,
      subjects: [names.traceSubject ?? Subjects.traceAll],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: ms(Streams.trace.maxAgeMs),
      max_bytes: Streams.trace.maxBytes,
    },
    options,
  );
}

export interface SubmitResult {
  readonly seq: number;
  /** True when the same goal id was already accepted within the duplicate window. */
  readonly duplicate: boolean;
}

/**
 * Publishes an accepted goal to the GOALS stream and waits for the stream's acknowledgement (so a 202 means durable).
 * `Nats-Msg-Id` = goal id makes a repeated submission a no-op inside the duplicate window.
 */
export async function submitGoal(
  nc: NatsConnection,
  submission: GoalSubmission,
  options: { subject?: string; timeoutMs?: number } = {},
): Promise<SubmitResult> {
  // async: invalid input rejects the promise (as before), it does not throw at the call
  return publishSubmission(nc, GoalSubmission.parse(submission), options);
}

/** `submitGoal` of a submission its caller has just parsed (acceptGoal): the same publish without parsing it again. */
export async function publishSubmission(
  nc: NatsConnection,
  body: GoalSubmission,
  options: { subject?: string; timeoutMs?: number } = {},
): Promise<SubmitResult> {
  try {
    const headers = withTraceHeaders();
    const ack = await jetstreamOf(nc, options.timeoutMs ?? 5_000).publish(
      options.subject ?? Subjects.goalSubmitted,
      JSON.stringify(body),
      { msgID: body.goalId, ...(headers ? { headers } : {}) },
    );
    return { seq: ack.seq, duplicate: ack.duplicate };
  } catch (err) {
    throw BusError.of(
      'UNAVAILABLE',
      `the goal could not be stored: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** One JetStream client per connection and timeout, made once (each goal accepted by the gateway publishes with it). */
const clients = new WeakMap<NatsConnection, Map<number, JetStreamClient>>();
function jetstreamOf(nc: NatsConnection, timeout: number): JetStreamClient {
  let byTimeout = clients.get(nc);
  if (!byTimeout) clients.set(nc, (byTimeout = new Map()));
  let js = byTimeout.get(timeout);
  if (!js) byTimeout.set(timeout, (js = jetstream(nc, { timeout })));
  return js;
}
