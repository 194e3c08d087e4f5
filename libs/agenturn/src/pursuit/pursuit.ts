import type { ErrorInfo } from '../errors/error-info';
import type { Goal } from '../goal/goal';
import type { OperationOutcome, Resolution, ResolutionStatus } from './step';

/** Where a pursuit stands: the goal and the steps executed so far, in order. Immutable; the executor builds new ones. */
export interface PursuitProgress {
  readonly goal: Goal;
  readonly executedSteps: readonly OperationOutcome[];
}

/** How a pursuit ended. */
export type PursuitStatus = 'completed' | 'failed' | 'abandoned' | 'cancelled';

/** Which executor budget stopped a pursuit. */
export type PursuitLimit = 'max_steps' | 'wall_clock';

/** The end of a pursuit. */
export interface PursuitOutcome {
  readonly goal: Goal;
  readonly status: PursuitStatus;
  /** Why it ended (the resolution's reason, the limit hit, the error, or the cancellation). */
  readonly reason: string;
  /** The answer for the user; for a pursuit that did not resolve, a summary of what was done. */
  readonly response: string;
  readonly executedSteps: readonly OperationOutcome[];
  /** The determiner's resolution; null when the pursuit ended otherwise (limit, error, cancellation). */
  readonly resolution: Resolution | null;
  /** Set when a budget ended the pursuit (status `abandoned`). */
  readonly limitHit?: PursuitLimit;
  /** Set when an error ended the pursuit (status `failed`). */
  readonly error?: ErrorInfo;
  /** ISO-8601. */
  readonly resolvedAt: string;
}

/**
 * The pursuit status a resolution maps to: success → completed, failed → failed, incomplete → abandoned (the goal was
 * not reached and the agent stopped trying), abandoned → abandoned. The original always reported `completed`, which hid
 * failures from callers; that is the bug fixed here.
 */
export function pursuitStatusOf(status: ResolutionStatus): PursuitStatus {
  switch (status) {
    case 'success':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'incomplete':
    case 'abandoned':
      return 'abandoned';
  }
}
