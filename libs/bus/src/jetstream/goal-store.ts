import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { Buckets, type GoalRecord, KvKeys } from '@novelrag/contracts';
import { decodeGoalAt, encodeGoal, goalChanged, goalExists, goalWithoutRevision } from '../stores/goal-codec';
import {
  type GoalListQuery,
  type GoalPage,
  type GoalStore,
  mutateGoal,
  listGoals,
} from '../stores/goal-store';
import { isWrongSequence } from './kv-errors';

/** Upper bound on keys a list call reads (the bucket keeps goals; an ops index would replace this at scale). */
const MAX_SCAN = 10_000;

/**
 * The GoalStore over the JetStream KV bucket `goals`: one JSON `GoalRecord` (without its revision) per key
 * `KvKeys.goal(goalId)`; the revision is the KV entry's, and every write is a compare-and-swap on it.
 */
export class KvGoalStore implements GoalStore {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, bucket: string = Buckets.goals): Promise<KvGoalStore> {
    const kv = await new Kvm(nc).create(bucket, { history: 5 });
    return new KvGoalStore(kv);
  }

  async create(record: GoalRecord): Promise<GoalRecord> {
    const { body, data } = encodeGoal(record);
    try {
      const revision = await this.kv.create(KvKeys.goal(record.goalId), data);
      return { ...body, revision };
    } catch (err) {
      if (isWrongSequence(err)) throw goalExists(record.goalId);
      throw err;
    }
  }

  async get(goalId: string, known?: GoalRecord): Promise<GoalRecord | null> {
    const entry = await this.kv.get(KvKeys.goal(goalId));
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return null;
    return decodeGoalAt(goalId, entry.revision, () => entry.json<object>(), known);
  }

  async update(record: GoalRecord): Promise<GoalRecord> {
    const { body, revision, data } = encodeGoal(record);
    if (revision === undefined) throw goalWithoutRevision(record.goalId);
    try {
      const next = await this.kv.update(KvKeys.goal(record.goalId), data, revision);
      return { ...body, revision: next };
    } catch (err) {
      if (isWrongSequence(err)) throw goalChanged(record.goalId, revision);
      throw err;
    }
  }

  async delete(goalId: string): Promise<void> {
    await this.kv.delete(KvKeys.goal(goalId));
  }

  mutate(
    goalId: string,
    change: (current: GoalRecord) => GoalRecord | null,
    retries = 5,
    known?: GoalRecord,
  ): Promise<GoalRecord> {
    return mutateGoal(this, goalId, change, retries, known);
  }

  async list(query: GoalListQuery = {}): Promise<GoalPage> {
    const keys: string[] = [];
    for await (const key of await this.kv.keys()) {
      keys.push(key);
      if (keys.length >= MAX_SCAN) break;
    }
    return listGoals(this, keys, query);
  }
}
