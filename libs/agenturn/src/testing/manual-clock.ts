import type { Clock } from '../execution/clock';

/** A clock that only moves when told to (for wall-clock budgets and timestamps in tests). */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(epochMs: number): void {
    this.current = epochMs;
  }
}
