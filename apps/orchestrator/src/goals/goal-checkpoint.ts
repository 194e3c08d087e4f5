import type { GoalStore } from '@novelrag/bus';
import { type GoalRecord, type GoalStatus, canTransition } from '@novelrag/contracts';
import type { GoalTrace } from './goal-trace';

/**
 * The running goal's view of its KV record. Writes are serialised (a step checkpoint and an interaction never
 * interleave) and go through compare-and-swap: on a conflict (the gateway set `cancelRequested` meanwhile) the record is
 * re-read and the change re-applied, so nobody's field is lost. Status changes are checked against the allowed
 * transitions and traced as `goal.status_changed`.
 */
export class GoalCheckpoint {
  private chain: Promise<unknown> = Promise.resolve();
  private latest: GoalRecord;

  constructor(
    private readonly store: GoalStore,
    record: GoalRecord,
    private readonly trace: GoalTrace,
  ) {
    this.latest = record;
  }

  get record(): GoalRecord {
    return this.latest;
  }

  /** Applies `change` to the current stored record (serialised with the other writes) and returns the new record. */
  write(change: (current: GoalRecord) => Partial<GoalRecord>, reason?: string): Promise<GoalRecord> {
    const run = async () => {
      let statusChange: { from: GoalStatus; to: GoalStatus } | undefined;
      const next = await this.store.mutate(this.latest.goalId, (current) => {
        const patch = change(current);
        const to = patch.status ?? current.status;
        if (to !== current.status && !canTransition(current.status, to)) {
          throw new Error(`goal ${current.goalId}: status ${current.status} cannot become ${to}`);
        }
        statusChange = to !== current.status ? { from: current.status, to } : undefined;
        return { ...current, ...patch, updatedAt: new Date().toISOString() };
      });
      this.latest = next;
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

  /** Re-reads the stored record (to see a cancel flag set by the gateway). */
  async refresh(): Promise<GoalRecord> {
    const current = await this.store.get(this.latest.goalId);
    if (current) this.latest = current;
    return this.latest;
  }
}
