import { BusError, type GoalStore, transportError } from '@novelrag/bus';
import {
  type ErrorCode,
  type GoalRecord,
  type GoalStatus,
  canTransition,
  isTerminalStatus,
} from '@novelrag/contracts';
import { fitRecord } from './records';
import { PursuitStopped } from './stop';
import type { GoalTrace } from './trace';

const TRANSIENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'UNAVAILABLE',
  'TIMEOUT',
  'NO_RESPONDERS',
]);

/**
 * Whether `err`, thrown by a KV store (goal record, thread), is a bus hiccup that a later delivery may get past: a
 * BusError coded UNAVAILABLE, TIMEOUT or NO_RESPONDERS, or a NATS client error that maps to one (the stores pass those
 * through as thrown). Not CONFLICT (the stores already retried it), nor a record that does not parse or a refused
 * transition: those fail again on every delivery.
 */
export function isTransientStoreError(err: unknown): boolean {
  const bus = err instanceof BusError ? err : transportError(err);
  return bus !== undefined && TRANSIENT_CODES.has(bus.code);
}

/**
 * The running goal's view of its KV record. Writes are serialised (a step checkpoint and an interaction never
 * interleave) and go through compare-and-swap: on a conflict (the gateway set `cancelRequested` meanwhile) the record is
 * re-read and the change re-applied, so nobody's field is lost. Status changes are checked against the allowed
 * transitions and traced as `goal.status_changed`.
 *
 * Because a conflict re-applies the change, CAS alone never stops a stale writer (an instance that was paused past its
 * thread lease while another one took the goal over). Once `fence` is set, every write therefore checks the stored
 * record: a pickup by another pursuit (`attempts` moved on) or an end of the goal makes it throw `PursuitStopped` (reason
 * `superseded`) instead.
 */
export class GoalCheckpoint {
  private chain: Promise<unknown> = Promise.resolve();
  private latest: GoalRecord;
  private fenceAt: number | undefined;

  constructor(
    private readonly store: GoalStore,
    record: GoalRecord,
    private readonly trace: GoalTrace,
    private readonly onSuperseded: () => void = () => undefined,
  ) {
    this.latest = record;
  }

  get record(): GoalRecord {
    return this.latest;
  }

  /** From now on, refuse to write over a record whose `attempts` is no longer `attempts` (the one this pursuit wrote). */
  fence(attempts: number): void {
    this.fenceAt = attempts;
  }

  /**
   * Applies `change` to the current stored record (serialised with the other writes) and returns the new record.
   * `stored` runs once the record is stored, before its status change is traced (the events it emits come first).
   */
  write(
    change: (current: GoalRecord) => Partial<GoalRecord>,
    reason?: string,
    stored?: (record: GoalRecord) => void,
  ): Promise<GoalRecord> {
    const run = async () => {
      let statusChange: { from: GoalStatus; to: GoalStatus } | undefined;
      const next = await this.store.mutate(
        this.latest.goalId,
        (current) => {
          if (this.superseded(current, true)) {
            this.onSuperseded();
            throw new PursuitStopped({ kind: 'superseded' });
          }
          const patch = change(current);
          const to = patch.status ?? current.status;
          if (to !== current.status && !canTransition(current.status, to)) {
            throw new Error(`goal ${current.goalId}: status ${current.status} cannot become ${to}`);
          }
          statusChange = to !== current.status ? { from: current.status, to } : undefined;
          return fitRecord({ ...current, ...patch, updatedAt: new Date().toISOString() });
          // The record this pursuit last read or wrote is tried first (one round trip); a conflict re-reads.
        },
        undefined,
        this.latest,
      );
      this.latest = next;
      stored?.(next);
      if (statusChange) {
        this.trace.emit({
          kind: 'goal.status_changed',
          ...statusChange,
          ...(reason ? { reason } : {}),
        });
      }
      return next;
    };
    const result = this.chain.then(run, run);
    this.chain = result.catch(() => undefined);
    return result;
  }

  /**
   * Re-reads the stored record (to see a cancel flag set by the gateway, or a takeover by another pursuit). A read
   * answered after a later write of ours is older than what we hold and is not adopted.
   */
  async refresh(): Promise<GoalRecord> {
    // Unchanged since our last read or write (the usual case), the stored value is not parsed again.
    const current = await this.store.get(this.latest.goalId, this.latest);
    if (current && (current.revision ?? 0) > (this.latest.revision ?? 0)) {
      this.latest = current;
      if (this.superseded(current, false)) this.onSuperseded();
    }
    return this.latest;
  }

  /**
   * Whether `current` no longer belongs to this pursuit. A write must also not touch a terminal record (a pursuit's own
   * end is its last write); a read may see one (our own end).
   */
  private superseded(current: GoalRecord, writing: boolean): boolean {
    if (this.fenceAt === undefined) return false;
    return (current.attempts ?? 0) !== this.fenceAt || (writing && isTerminalStatus(current.status));
  }
}
