import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { Buckets, GoalRecord, GoalStatus, KvKeys, describeIssues } from '@novelrag/contracts';
import { z } from 'zod';
import { BusError } from '../errors';

export interface GoalListQuery {
  readonly status?: GoalStatus;
  readonly threadId?: string;
  /** 1..100, default 20. */
  readonly limit?: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  readonly cursor?: string;
}

export interface GoalPage {
  readonly goals: GoalRecord[];
  readonly nextCursor: string | null;
}

const Cursor = z.strictObject({ createdAt: z.string(), goalId: z.string() });
type Cursor = z.infer<typeof Cursor>;

/** Upper bound on keys a list call reads (the bucket keeps goals; an ops index would replace this at scale). */
const MAX_SCAN = 10_000;

/**
 * The `goals` KV bucket: one `GoalRecord` per goal, written with compare-and-swap on the KV revision so two
 * orchestrator instances (or a stale one after a crash) cannot overwrite each other's checkpoint.
 *
 * Errors (BusError): ALREADY_EXISTS on `create` of an existing goal, CONFLICT on a stale revision, NOT_FOUND on
 * `mutate` of an unknown goal, VALIDATION_FAILED for a bad cursor, INTERNAL for a stored record that does not parse.
 */
export class GoalStore {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, bucket: string = Buckets.goals): Promise<GoalStore> {
    const kv = await new Kvm(nc).create(bucket, { history: 5 });
    return new GoalStore(kv);
  }

  /** Stores a new goal; returns its revision. */
  async create(record: GoalRecord): Promise<GoalRecord> {
    const { revision: _ignored, ...body } = GoalRecord.parse(record);
    try {
      const revision = await this.kv.create(KvKeys.goal(record.goalId), JSON.stringify(body));
      return { ...body, revision };
    } catch (err) {
      if (isWrongSequence(err))
        throw BusError.of('ALREADY_EXISTS', `goal ${record.goalId} exists`, { goalId: record.goalId });
      throw err;
    }
  }

  /** The goal with the revision it was read at, or null. */
  async get(goalId: string): Promise<GoalRecord | null> {
    const entry = await this.kv.get(KvKeys.goal(goalId));
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return null;
    const parsed = GoalRecord.safeParse({ ...entry.json<object>(), revision: entry.revision });
    if (!parsed.success) {
      throw BusError.of(
        'INTERNAL',
        `stored goal ${goalId} does not match its schema: ${describeIssues(parsed.error)}`,
      );
    }
    return parsed.data;
  }

  /** Writes `record` if the stored revision is still `record.revision`; returns it with the new revision. */
  async update(record: GoalRecord): Promise<GoalRecord> {
    const { revision, ...body } = GoalRecord.parse(record);
    if (revision === undefined)
      throw BusError.of('CONFLICT', `goal ${record.goalId} has no revision to update from`);
    try {
      const next = await this.kv.update(KvKeys.goal(record.goalId), JSON.stringify(body), revision);
      return { ...body, revision: next };
    } catch (err) {
      if (isWrongSequence(err)) {
        throw BusError.of('CONFLICT', `goal ${record.goalId} changed since revision ${revision}`, {
          goalId: record.goalId,
        });
      }
      throw err;
    }
  }

  /** Removes a goal (used to roll back a submission whose stream publish failed). */
  async delete(goalId: string): Promise<void> {
    await this.kv.delete(KvKeys.goal(goalId));
  }

  /** Read-modify-write with bounded retries on CONFLICT. `change` returns the new record (or null for no change). */
  async mutate(
    goalId: string,
    change: (current: GoalRecord) => GoalRecord | null,
    retries = 5,
  ): Promise<GoalRecord> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.get(goalId);
      if (!current) throw BusError.of('NOT_FOUND', `goal ${goalId} does not exist`, { goalId });
      const next = change(current);
      if (!next) return current;
      try {
        return await this.update({ ...next, revision: current.revision });
      } catch (err) {
        if (err instanceof BusError && err.code === 'CONFLICT' && attempt < retries) continue;
        throw err;
      }
    }
  }

  /** Newest first (createdAt, then goal id), filtered; cursor pagination. */
  async list(query: GoalListQuery = {}): Promise<GoalPage> {
    const limit = Math.min(Math.max(query.limit ?? 20, 1), 100);
    const cursor = query.cursor ? decodeCursor(query.cursor) : null;
    const keys: string[] = [];
    for await (const key of await this.kv.keys()) {
      keys.push(key);
      if (keys.length >= MAX_SCAN) break;
    }
    const goals: GoalRecord[] = [];
    for (const key of keys) {
      const goal = await this.get(key).catch(() => null);
      if (!goal) continue;
      if (query.status && goal.status !== query.status) continue;
      if (query.threadId && goal.threadId !== query.threadId) continue;
      if (cursor && !isAfter(goal, cursor)) continue;
      goals.push(goal);
    }
    goals.sort((a, b) =>
      a.createdAt === b.createdAt ? (a.goalId < b.goalId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    const page = goals.slice(0, limit);
    const last = page[page.length - 1];
    return {
      goals: page,
      nextCursor:
        goals.length > limit && last
          ? encodeCursor({ createdAt: last.createdAt, goalId: last.goalId })
          : null,
    };
  }
}

function isAfter(goal: GoalRecord, cursor: Cursor): boolean {
  return (
    goal.createdAt < cursor.createdAt || (goal.createdAt === cursor.createdAt && goal.goalId < cursor.goalId)
  );
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  try {
    return Cursor.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw BusError.of('VALIDATION_FAILED', 'invalid cursor');
  }
}

/** Whether a KV write failed its revision check (a `create` of an existing key, an `update` from a stale revision). */
export function isWrongSequence(err: unknown): boolean {
  return err instanceof Error && /wrong last sequence|key exists/i.test(err.message);
}
