import type { AgentKind, GoalRecord, GoalStatus } from '@novelrag/contracts';
import { z } from 'zod';
import { BusError } from '../errors';

export interface GoalListQuery {
  readonly status?: GoalStatus;
  readonly threadId?: string;
  /** Only goals of this agent kind (a record without one is `novelrag`). */
  readonly agent?: AgentKind;
  /** 1..100, default 20. */
  readonly limit?: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  readonly cursor?: string;
}

export interface GoalPage {
  readonly goals: GoalRecord[];
  readonly nextCursor: string | null;
}

/**
 * The goal records, one per goal id, each with a revision that grows with every write, so two orchestrator instances
 * (or a stale one after a crash) cannot overwrite each other's checkpoint. Every method fails with a BusError:
 *
 * - `create` stores a new goal (create-if-absent) and returns it with its revision; ALREADY_EXISTS when the id is taken.
 * - `get` returns the goal read at its revision, or null when there is none (or it was deleted); INTERNAL when the
 *   stored value does not match the GoalRecord schema. Given the record the caller holds (`known`, with its revision),
 *   it answers `known` itself while that is still the stored revision, without parsing the stored value again.
 * - `update` writes only if the stored revision is still `record.revision` and returns the new revision; CONFLICT
 *   when it changed (or the record carries no revision). It does not create.
 * - `delete` removes a goal (a submission rolled back); deleting a missing goal is not an error.
 * - `mutate` is read-modify-write with `retries` re-reads on CONFLICT (`change` returning null writes nothing and
 *   returns the current record; an error thrown by `change` propagates); NOT_FOUND for an unknown goal. Given the
 *   record the caller last read or wrote (`known`, with its revision), the first attempt applies `change` to it without
 *   reading: one round trip instead of two when nobody wrote since, a re-read and a retry when somebody did.
 * - `list` pages newest first (createdAt, then goal id, both descending), filtered by status and thread;
 *   VALIDATION_FAILED for a cursor it did not issue.
 */
export interface GoalStore {
  create(record: GoalRecord): Promise<GoalRecord>;
  get(goalId: string, known?: GoalRecord): Promise<GoalRecord | null>;
  update(record: GoalRecord): Promise<GoalRecord>;
  delete(goalId: string): Promise<void>;
  mutate(
    goalId: string,
    change: (current: GoalRecord) => GoalRecord | null,
    retries?: number,
    known?: GoalRecord,
  ): Promise<GoalRecord>;
  list(query?: GoalListQuery): Promise<GoalPage>;
}

/** `GoalStore.mutate` over a store's `get` and `update` (one definition for every implementation). */
export async function mutateGoal(
  store: Pick<GoalStore, 'get' | 'update'>,
  goalId: string,
  change: (current: GoalRecord) => GoalRecord | null,
  retries = 5,
  known?: GoalRecord,
): Promise<GoalRecord> {
  // A known record without a revision cannot be compared-and-swapped: read it.
  let guess = known?.goalId === goalId && known.revision !== undefined ? known : undefined;
  for (let attempt = 0; ; attempt++) {
    const current = guess ?? (await store.get(goalId));
    if (!current) throw BusError.of('NOT_FOUND', `goal ${goalId} does not exist`, { goalId });
    let next: GoalRecord | null;
    try {
      next = change(current);
    } catch (err) {
      if (guess === undefined) throw err;
      guess = undefined; // refused on what may be an old record: decide on the stored one
      attempt--;
      continue;
    }
    // Nothing to write is decided on the stored record, not on a guess.
    if (!next && guess !== undefined) {
      guess = undefined;
      attempt--;
      continue;
    }
    if (!next) return current;
    try {
      return await store.update({ ...next, revision: current.revision });
    } catch (err) {
      const stale = guess !== undefined;
      guess = undefined;
      // A stale guess is no failed attempt: the stored record was never read.
      if (err instanceof BusError && err.code === 'CONFLICT' && stale) {
        attempt--;
        continue;
      }
      if (err instanceof BusError && err.code === 'CONFLICT' && attempt < retries) continue;
      throw err;
    }
  }
}

/** `GoalStore.list` over the stored ids: every readable goal (unreadable ones are left out), then `pageGoals`. */
export async function listGoals(
  store: Pick<GoalStore, 'get'>,
  goalIds: Iterable<string>,
  query: GoalListQuery = {},
): Promise<GoalPage> {
  const goals: GoalRecord[] = [];
  for (const goalId of goalIds) {
    const goal = await store.get(goalId).catch(() => null);
    if (goal) goals.push(goal);
  }
  return pageGoals(goals, query);
}

const Cursor = z.strictObject({ createdAt: z.string(), goalId: z.string() });
type Cursor = z.infer<typeof Cursor>;

/** `GoalStore.list`'s page of `goals` (every stored goal; filtered, ordered and cut here). */
export function pageGoals(all: readonly GoalRecord[], query: GoalListQuery = {}): GoalPage {
  const limit = Math.min(Math.max(query.limit ?? 20, 1), 100);
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  const goals = all.filter(
    (goal) =>
      (!query.status || goal.status === query.status) &&
      (!query.threadId || goal.threadId === query.threadId) &&
      (!query.agent || (goal.agent ?? 'novelrag') === query.agent) &&
      (!cursor || isAfter(goal, cursor)),
  );
  goals.sort((a, b) =>
    a.createdAt === b.createdAt ? (a.goalId < b.goalId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
  );
  const page = goals.slice(0, limit);
  const last = page[page.length - 1];
  return {
    goals: page,
    nextCursor:
      goals.length > limit && last ? encodeCursor({ createdAt: last.createdAt, goalId: last.goalId }) : null,
  };
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
