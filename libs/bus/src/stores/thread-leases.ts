/**
 * Serialises the goals of a thread across orchestrator instances: one holder at a time, and the waiting goals get the
 * thread in the order of their GOALS stream sequence, whichever instance pulled them.
 *
 * Guarantees: two goals never hold one thread at once (every change is a compare-and-swap). Liveness is a heartbeat: a
 * holder renews its lease every fifth of `leaseMs` (a waiter refreshes its place as often), bumping a counter; a waiter
 * that has seen a holder's or waiter's counter unchanged for `leaseMs` on its own monotonic clock counts it as dead
 * (clocks of different hosts are never compared, so skew between hosts cannot cause a takeover), so a crashed instance
 * delays its thread by at most about `leaseMs` after the next goal started watching, and that goal takes the lease over.
 * A goal delivered again takes over the lease of its earlier delivery at once (JetStream redelivers only after that
 * delivery stopped being kept alive for the ack wait). A holder that finds its lease taken over (it was paused longer than the lease) is told through
 * `HeldThread.lost` and must stop acting; its `release` then leaves the new holder alone. A waiter whose signal aborts
 * leaves the queue at once (the goals behind it do not wait for its entry to expire).
 */
export interface ThreadLeases {
  /**
   * Waits (bounded by `maxWaitMs`) for the thread; null when that time passed (the goal keeps its place in the queue
   * until its entry expires) or `signal` aborted first (it leaves the queue). Store failures reject.
   */
  acquire(req: AcquireRequest): Promise<HeldThread | null>;
}

export interface ThreadLeaseOptions {
  readonly leaseMs: number;
  /** How often a waiter re-reads the record (default leaseMs / 10, at least 100 ms). */
  readonly pollMs?: number;
  /** This instance's clock, only ever compared with itself (default `performance.now`, monotonic). */
  readonly now?: () => number;
}

export interface AcquireRequest {
  readonly threadId: string;
  readonly goalId: string;
  /** GOALS stream sequence of the goal (its place in the thread's queue). */
  readonly seq: number;
  /** Give up after this long (the caller hands the goal back to the queue). */
  readonly maxWaitMs: number;
  readonly signal?: AbortSignal;
  /** Called on every poll while waiting (the caller keeps the JetStream message alive). */
  readonly onWait?: () => void;
}

/** A held thread. `lost` aborts when the lease was taken over; `release` hands the thread to the next goal. */
export interface HeldThread {
  readonly lost: AbortSignal;
  release(): Promise<void>;
}
