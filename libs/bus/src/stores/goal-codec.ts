import { GoalRecord, describeIssues } from '@novelrag/contracts';
import { BusError } from '../errors';

/**
 * How every GoalStore keeps a record: its JSON without the revision (the revision is the store's own). Shared by the
 * KV store and its in-memory twin so both store, read and fail alike.
 */
export function encodeGoal(record: GoalRecord): {
  body: Omit<GoalRecord, 'revision'>;
  revision: number | undefined;
  data: string;
} {
  const { revision, ...body } = GoalRecord.parse(record);
  return { body, revision, data: JSON.stringify(body) };
}

/** A stored value read at `revision`; INTERNAL when it does not match the schema. */
export function decodeGoal(goalId: string, stored: unknown, revision: number): GoalRecord {
  const parsed = GoalRecord.safeParse({ ...(stored as object), revision });
  if (!parsed.success) {
    throw BusError.of(
      'INTERNAL',
      `stored goal ${goalId} does not match its schema: ${describeIssues(parsed.error)}`,
    );
  }
  return parsed.data;
}

/**
 * The record stored at `revision`: `known` itself when it is that goal at that very revision (a revision names one
 * write, so it holds what is stored: nothing to read or check again), otherwise `stored()` decoded.
 */
export function decodeGoalAt(
  goalId: string,
  revision: number,
  stored: () => unknown,
  known?: GoalRecord,
): GoalRecord {
  if (known?.goalId === goalId && known.revision === revision) return known;
  return decodeGoal(goalId, stored(), revision);
}

export const goalExists = (goalId: string) =>
  BusError.of('ALREADY_EXISTS', `goal ${goalId} exists`, { goalId });

export const goalWithoutRevision = (goalId: string) =>
  BusError.of('CONFLICT', `goal ${goalId} has no revision to update from`);

export const goalChanged = (goalId: string, revision: number) =>
  BusError.of('CONFLICT', `goal ${goalId} changed since revision ${revision}`, { goalId });
