// How a pursuit stops: one AbortController per pursuit, its reason a typed StopReason, and the one mapping from how a
// pursuit ended to what happens to its JetStream message.

/**
 * Why a pursuit stopped before it reached an end of its own. The first reason given wins (`AbortController` keeps the
 * first `abort` reason); later ones are ignored.
 */
export type StopReason =
  /** The user cancelled the goal (cancel event, or the record's `cancelRequested`). The goal ends `cancelled`. */
  | { readonly kind: 'cancelled'; readonly requestedBy?: string }
  /** The goal's token budget ran out. The goal ends `abandoned` with the limit and the best partial answer. */
  | { readonly kind: 'budget'; readonly limit: 'token_budget' }
  /** This instance shuts down (SIGTERM/SIGINT, at once): another instance resumes the goal from its checkpoint. */
  | { readonly kind: 'handed_back' }
  /** The thread lease was lost (this process was paused past it): whoever holds the thread now owns the goal. */
  | { readonly kind: 'lease_lost' }
  /** Another pursuit picked the goal up (a fenced checkpoint write or read saw it): it owns the delivery now. */
  | { readonly kind: 'superseded' }
  /**
   * A transient store error (UNAVAILABLE, TIMEOUT, NO_RESPONDERS) failed a checkpoint or a workspace save: the goal is
   * handed back to be resumed from its last checkpoint, and the failure counts towards the consumer's limit.
   */
  | { readonly kind: 'store_failure'; readonly error: unknown }
  /** The thread stayed busy for the whole wait (no pursuit started): delivered again later. */
  | { readonly kind: 'thread_busy' };

/** A pursuit that ran to an end it records (completed, failed, cancelled, abandoned; or already ended before). */
export const FINISHED = { kind: 'finished' } as const;

/** How a delivery ended: the stop that ended it, or a recorded end. */
export type PursuitEnd = StopReason | typeof FINISHED;

/**
 * What to do with the JetStream message: `ack` (terminal and recorded), `retry` (nak with a delay: the thread is busy or
 * the infrastructure failed), `release` (nak now: this instance is shutting down, another one resumes the goal),
 * `drop` (neither: another instance took the goal over and holds a newer delivery of it).
 */
export type PursuitResult = 'ack' | 'retry' | 'release' | 'drop';

/**
 * The one place where the end of a pursuit becomes the fate of its message. A store failure is rethrown: the consumer
 * naks the message with a delay and counts it against its failed-delivery limit (after which it terminates the message
 * and gives the goal up).
 */
export function deliveryOf(end: PursuitEnd): PursuitResult {
  switch (end.kind) {
    case 'finished':
    case 'cancelled':
    case 'budget':
      return 'ack';
    case 'thread_busy':
      return 'retry';
    case 'handed_back':
      return 'release';
    case 'lease_lost':
    case 'superseded':
      return 'drop';
    case 'store_failure':
      throw end.error;
  }
}

/** The reasons a pursuit stops for without recording an end. */
export type HandBack = Extract<
  StopReason,
  { kind: 'handed_back' | 'lease_lost' | 'superseded' | 'store_failure' | 'thread_busy' }
>;

/** Whether the pursuit stops without recording an end (someone else resumes or owns the goal). */
export function handsBack(reason: StopReason | undefined): reason is HandBack {
  return (
    reason?.kind === 'handed_back' ||
    reason?.kind === 'lease_lost' ||
    reason?.kind === 'superseded' ||
    reason?.kind === 'store_failure' ||
    reason?.kind === 'thread_busy'
  );
}

/**
 * Thrown where a pursuit cannot go on because it was stopped (a fenced checkpoint write refused after a takeover):
 * carries the reason to `deliveryOf`.
 */
export class PursuitStopped extends Error {
  override readonly name = 'PursuitStopped';
  constructor(readonly reason: StopReason) {
    super(`pursuit stopped: ${reason.kind}`);
  }
}

/** The stop of one pursuit: one controller, a typed reason, the first one wins. */
export class PursuitStop {
  private readonly controller = new AbortController();

  /** Aborted with the StopReason (passed to the loop, the tools and the interactions). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The reason it stopped for, if it did. */
  get reason(): StopReason | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as StopReason) : undefined;
  }

  stop(reason: StopReason): void {
    this.controller.abort(reason);
  }

  /** Stops with `reason` when `signal` aborts (at once when it already has). Returns the unsubscription. */
  follow(signal: AbortSignal, reason: StopReason): () => void {
    const onAbort = () => this.stop(reason);
    if (signal.aborted) {
      onAbort();
      return () => undefined;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  }
}

/** The stop reason of an error that ended a pursuit, if it was one (a refused fenced write). */
export function stopReasonOf(err: unknown): StopReason | undefined {
  return err instanceof PursuitStopped ? err.reason : undefined;
}
