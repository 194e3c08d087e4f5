// The launcher's restart policy (`npm start`, tools/scripts/start.mjs): a service that exits unexpectedly is started
// again after an exponential backoff; a service that crashes more than `limit` times within `windowMs` is in a crash
// loop and is given up. Pure functions of the crash times, so the policy is unit-tested without processes.

/** 1 s, 2 s, 4 s, 8 s, 16 s between restarts; the 6th crash within 60 s gives the service up. */
export const RESTART_POLICY = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  limit: 5,
  windowMs: 60_000,
});

/** The wait before restart number `attempt` (1-based): doubling from `initialDelayMs`, capped at `maxDelayMs`. */
export function backoffDelay(attempt, policy = RESTART_POLICY) {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt must be an integer >= 1');
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
}

/**
 * What to do after a service's unexpected exit at `now`, given the times of its unexpected exits so far (this one
 * included): restart it after `delayMs` (the attempt counts only the crashes within the window, so a service that ran
 * quietly for a window starts again at the shortest delay), or give it up when the window holds more than `limit`.
 */
export function nextRestart(crashTimes, now, policy = RESTART_POLICY) {
  const recent = crashTimes.filter((t) => now - t < policy.windowMs).length;
  if (recent > policy.limit) return { restart: false, crashes: recent };
  const attempt = Math.max(1, recent);
  return { restart: true, attempt, delayMs: backoffDelay(attempt, policy), crashes: recent };
}

/**
 * The launcher's side of the policy: remembers each service's crash times and answers for one exit. `giveUp` is
 * true when the service is in a crash loop.
 */
export class RestartBook {
  #crashes = new Map();

  constructor(policy = RESTART_POLICY, now = () => Date.now()) {
    this.policy = policy;
    this.now = now;
  }

  /** Records an unexpected exit of `name` and returns the decision for it. */
  crashed(name) {
    const now = this.now();
    // Only the window matters: older crash times are dropped so a long-running launcher does not accumulate them.
    const times = (this.#crashes.get(name) ?? []).filter((t) => now - t < this.policy.windowMs);
    times.push(now);
    this.#crashes.set(name, times);
    return nextRestart(times, now, this.policy);
  }
}
