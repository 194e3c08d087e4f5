import { type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { type ContextLogger, traceContextOf } from '@novelrag/bus';
import {
  type ErrorEnvelope,
  GoalSubmission,
  Streams,
  describeIssues,
  errorEnvelope,
} from '@novelrag/contracts';
import { Metrics, runInContext } from '@novelrag/telemetry';
import type { Delivery, PursuitResult } from '../pursuit';

export interface GoalConsumerOptions {
  /** Stream name (tests isolate theirs). */
  readonly stream?: string;
  /** Goals pursued at once by this instance. */
  readonly concurrency: number;
  /** The consumer's ack wait; heartbeats are sent every fifth of it (a stall of up to 4/5 of it is survived). */
  readonly ackWaitMs: number;
  /** Delay before a goal handed back (busy thread, infrastructure error) is delivered again. */
  readonly retryDelayMs?: number;
  /** How long one pull waits for a goal (bounds how long `stop` takes). */
  readonly pullExpiresMs?: number;
  /**
   * Goals this instance takes in at once (default {@link DEFAULT_MAX_STARTING}, at most `concurrency`): pulled and not
   * yet started (their pickup: thread lease, record, trace numbering). A worker pulls only while fewer are; a goal frees
   * its place once its pursuit starts (`Delivery.started`), waits for its thread, or ends. A burst of goals is then
   * started a few at a time, in order, each reaching the model as soon as it can, instead of all of them interleaved
   * and reaching it together at the end; and goals this instance is too busy to start stay in the stream for another.
   */
  readonly maxStarting?: number;
  /**
   * Deliveries of one goal in a row whose handling threw (default 5; the orchestrator uses NOVELRAG_GOAL_MAX_ATTEMPTS)
   * after which its message is terminated and `giveUp` called. A pursuit that started counts its own attempts; this
   * bounds what fails before (an unreadable record, a store that keeps failing), which would otherwise come back forever.
   */
  readonly maxFailedDeliveries?: number;
  /** Records a goal given up after `maxFailedDeliveries` (best effort: a rejection is logged). */
  readonly giveUp?: (submission: GoalSubmission, error: ErrorEnvelope) => Promise<void>;
  readonly log: ContextLogger;
}

/** Goals an instance takes in at once unless told otherwise (see `GoalConsumerOptions.maxStarting`). */
export const DEFAULT_MAX_STARTING = 16;

/** Goals whose failure counts this instance remembers at most (the oldest are forgotten first). */
const MAX_TRACKED_FAILURES = 1_000;

export type GoalHandler = (
  submission: GoalSubmission,
  delivery: Delivery,
  suspend: AbortSignal,
) => Promise<PursuitResult>;

const ns = (ms: number) => ms * 1_000_000;

/**
 * How often a held goal's message is kept alive (`working()`, which restarts its ack wait on the server). Frequent
 * heartbeats are what allow a short ack wait, so a dead instance's goal is redelivered within about one ack wait.
 */
export const heartbeatEvery = (ackWaitMs: number) => Math.max(200, Math.floor(ackWaitMs / 5));

/**
 * Pulls goals from the durable `orchestrator` consumer of the GOALS work queue, which every instance shares (each goal
 * goes to one of them). `concurrency` workers each pull one goal at a time, at most `maxStarting` of them between a pull
 * and the start of the goal's pursuit. While a goal is held its message is kept
 * alive with `working()`; it is acked only once the goal is terminal and recorded, so an instance that dies leaves the
 * goal to be redelivered to any instance, which resumes it from its checkpoint. A submission that does not parse is
 * terminated (logged with its code) and never retried; so is a goal whose handling threw `maxFailedDeliveries` times in
 * a row (recorded as failed through `giveUp`).
 */
export class GoalConsumer {
  private stopping = false;
  private readonly suspend = new AbortController();
  private workers: Promise<void>[] = [];
  /** Pull requests in flight, and who waits for them to end. */
  private pulls = 0;
  private pullsDone: (() => void)[] = [];
  /** Goals pulled or being pulled and not yet started, and the workers waiting for one of those places. */
  private starting = 0;
  private startTurns: (() => void)[] = [];
  /**
   * Deliveries in a row whose handling threw, per goal id. Counted in memory, not from the message's delivery count:
   * that one also counts hand-backs for a busy thread, which may legitimately be many. With several instances a goal
   * is given up after at most that many failures on each.
   */
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly handle: GoalHandler,
    private readonly options: GoalConsumerOptions,
  ) {}

  get streamName(): string {
    return this.options.stream ?? Streams.goals.name;
  }

  /** Applies the ack wait to the durable consumer and starts the workers. */
  async start(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    const info = await jsm.consumers.info(this.streamName, Streams.goals.consumer);
    if (info.config.ack_wait !== ns(this.options.ackWaitMs)) {
      await jsm.consumers.update(this.streamName, Streams.goals.consumer, {
        ack_wait: ns(this.options.ackWaitMs),
      });
    }
    this.workers = Array.from({ length: this.options.concurrency }, (_, i) => this.work(i));
  }

  /**
   * Stops pulling; goals in flight get `graceMs` to finish (0: none), then they are suspended (they stop at their next
   * safe point without recording an end, release their thread lease, and their messages are naked without delay for
   * another instance to resume).
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const turn of this.startTurns.splice(0)) turn();
    const all = Promise.all(this.workers);
    const graceful = await Promise.race([
      all.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref()),
    ]);
    if (!graceful) {
      // Hand goals back only once no pull of ours is pending, or we would be sent them again at once.
      await this.noPulls();
      this.suspend.abort();
      await all;
    }
  }

  private noPulls(): Promise<void> {
    if (this.pulls === 0) return Promise.resolve();
    return new Promise((resolve) => this.pullsDone.push(resolve));
  }

  private get maxStarting(): number {
    const max = this.options.maxStarting ?? DEFAULT_MAX_STARTING;
    return Math.max(1, Math.min(this.options.concurrency, max));
  }

  /**
   * Takes one of the `maxStarting` places (waiting for one while all are taken); resolves to the function that gives it
   * back (idempotent), or to undefined when the consumer stops meanwhile.
   */
  private async startPlace(): Promise<(() => void) | undefined> {
    while (this.starting >= this.maxStarting && !this.stopping) {
      await new Promise<void>((resolve) => this.startTurns.push(resolve));
    }
    if (this.stopping) return undefined;
    this.starting += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.starting -= 1;
      this.startTurns.shift()?.();
    };
  }

  private async work(worker: number): Promise<void> {
    const consumer = await jetstream(this.nc).consumers.get(this.streamName, Streams.goals.consumer);
    while (!this.stopping) {
      const started = await this.startPlace();
      if (!started) break;
      try {
        let msg: JsMsg | null;
        this.pulls += 1;
        try {
          msg = await consumer.next({ expires: this.options.pullExpiresMs ?? 2_000 });
        } catch (err) {
          if (this.stopping || this.nc.isClosed()) break;
          this.options.log.warn('pull failed', { worker, error: String(err) });
          started();
          await new Promise((r) => setTimeout(r, 1_000));
          continue;
        } finally {
          this.pulls -= 1;
          if (this.pulls === 0) for (const done of this.pullsDone.splice(0)) done();
        }
        if (!msg) continue;
        if (this.stopping) {
          msg.nak(); // arrived while we stop: another instance takes it
          break;
        }
        await this.process(msg, started);
      } finally {
        started();
      }
    }
  }

  private async process(msg: JsMsg, started: () => void): Promise<void> {
    const log = this.options.log;
    let body: unknown;
    try {
      body = msg.json();
    } catch {
      log.error('goal submission rejected', { seq: msg.seq, code: 'VALIDATION_FAILED', issues: 'not JSON' });
      msg.term();
      return;
    }
    const parsed = GoalSubmission.safeParse(body);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error);
      log.error('goal submission rejected', { seq: msg.seq, code: 'VALIDATION_FAILED', issues });
      msg.term(); // no reason text: NATS 2.9 does not understand `+TERM <reason>` and would redeliver
      return;
    }
    const goalId = parsed.data.goalId;
    const heartbeat = setInterval(() => msg.working(), heartbeatEvery(this.options.ackWaitMs));
    heartbeat.unref();
    let result: PursuitResult;
    try {
      // The pursuit continues the submitter's trace (the goal record's traceparent, when stored, takes precedence).
      const delivery = {
        attempt: msg.info.deliveryCount,
        seq: msg.info.streamSequence,
        keepAlive: () => msg.working(),
        started,
      };
      if (delivery.attempt > 1) Metrics.goalRedeliveries.inc();
      Metrics.goalsRunning.inc();
      result = await runInContext(traceContextOf(msg.headers), () =>
        this.handle(parsed.data, delivery, this.suspend.signal),
      ).finally(() => Metrics.goalsRunning.dec());
      this.failures.delete(goalId); // handled without an error: the failures are no longer in a row
    } catch (err) {
      const failures = this.countFailure(goalId);
      if (failures >= (this.options.maxFailedDeliveries ?? 5)) {
        await this.giveUp(msg, parsed.data, failures, err); // kept alive meanwhile (the heartbeat stops below)
        return;
      }
      log.warn('goal handed back after an error', { goalId, failures, error: String(err) });
      result = 'retry';
    } finally {
      clearInterval(heartbeat);
    }
    switch (result) {
      case 'ack':
        await msg.ackAck().catch((err: unknown) => log.warn('ack failed', { goalId, error: String(err) }));
        break;
      case 'retry':
        msg.nak(this.options.retryDelayMs ?? 2_000);
        break;
      case 'release':
        msg.nak();
        break;
      case 'drop':
        break;
    }
  }

  private countFailure(goalId: string): number {
    const failures = (this.failures.get(goalId) ?? 0) + 1;
    this.failures.delete(goalId); // re-inserted last: the map's order is the age of the last failure
    this.failures.set(goalId, failures);
    for (const oldest of this.failures.keys()) {
      if (this.failures.size <= MAX_TRACKED_FAILURES) break;
      this.failures.delete(oldest);
    }
    return failures;
  }

  /** Terminates the message of a goal whose deliveries keep failing, and records it as failed. */
  private async giveUp(
    msg: JsMsg,
    submission: GoalSubmission,
    failures: number,
    err: unknown,
  ): Promise<void> {
    const { goalId } = submission;
    const reason = err instanceof Error ? err.message : String(err);
    const error = errorEnvelope(
      'INTERNAL',
      `given up after ${failures} deliveries in a row that failed: ${reason.slice(0, 500)}`,
    );
    this.options.log.error('goal given up', { goalId, seq: msg.seq, code: error.code, error: error.message });
    this.failures.delete(goalId);
    await this.options
      .giveUp?.(submission, error)
      .catch((e: unknown) =>
        this.options.log.warn('given-up goal not recorded', { goalId, error: String(e) }),
      );
    msg.term();
  }
}
