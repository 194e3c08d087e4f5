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

export const goalExists = (goalId: string) =>
  BusError.of('ALREADY_EXISTS', `goal ${goalId} exists`, { goalId });

export const goalWithoutRevision = (goalId: string) =>
  BusError.of('CONFLICT', `goal ${goalId} has no revision to update from`);

export const goalChanged = (goalId: string, revision: number) =>
  BusError.of('CONFLICT', `goal ${goalId} changed since revision ${revision}`, { goalId });
