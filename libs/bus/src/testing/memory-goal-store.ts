import type { GoalRecord } from '@novelrag/contracts';
import { decodeGoalAt, encodeGoal, goalChanged, goalExists, goalWithoutRevision } from '../stores/goal-codec';
import {
  type GoalListQuery,
  type GoalPage,
  type GoalStore,
  mutateGoal,
  listGoals,
} from '../stores/goal-store';
import { RevisionedMap } from './revisioned-map';

/**
 * The GoalStore in memory, for tests and offline demos: the same guarantees as the KV store (create-if-absent,
 * compare-and-swap revisions, the same errors, the same list order and cursors), nothing persisted.
 */
export class InMemoryGoalStore implements GoalStore {
  private readonly records = new RevisionedMap();

  async create(record: GoalRecord): Promise<GoalRecord> {
    const { body, data } = encodeGoal(record);
    const revision = this.records.create(record.goalId, data);
    if (revision === null) throw goalExists(record.goalId);
    return { ...body, revision };
  }

  async get(goalId: string, known?: GoalRecord): Promise<GoalRecord | null> {
    const entry = this.records.get(goalId);
    return entry ? decodeGoalAt(goalId, entry.revision, () => JSON.parse(entry.value), known) : null;
  }

  async update(record: GoalRecord): Promise<GoalRecord> {
    const { body, revision, data } = encodeGoal(record);
    if (revision === undefined) throw goalWithoutRevision(record.goalId);
    const next = this.records.update(record.goalId, data, revision);
    if (next === null) throw goalChanged(record.goalId, revision);
    return { ...body, revision: next };
  }

  async delete(goalId: string): Promise<void> {
    this.records.delete(goalId);
  }

  mutate(
    goalId: string,
    change: (current: GoalRecord) => GoalRecord | null,
    retries = 5,
    known?: GoalRecord,
  ): Promise<GoalRecord> {
    return mutateGoal(this, goalId, change, retries, known);
  }

  list(query: GoalListQuery = {}): Promise<GoalPage> {
    return listGoals(this, this.records.keys(), query);
  }

  /** Stores a raw value under a goal id, bypassing the schema (tests of unreadable records). */
  putRaw(goalId: string, value: string): void {
    this.records.put(goalId, value);
  }
}
