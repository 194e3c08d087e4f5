/** Source of the current time, injectable so that budgets and timestamps are testable. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
