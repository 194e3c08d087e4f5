import { z } from 'zod';

/**
 * Lifecycle of a goal. `queued` in the stream; `running` while an orchestrator pursues it (also after a crash and
 * redelivery: resumption does not change the status); `waiting_for_input` while a tool waits for a human answer;
 * then one terminal status.
 */
export const GoalStatus = z.enum([
  'queued',
  'running',
  'waiting_for_input',
  'completed',
  'failed',
  'abandoned',
  'cancelled',
]);
export type GoalStatus = z.infer<typeof GoalStatus>;

export const TERMINAL_GOAL_STATUSES = ['completed', 'failed', 'abandoned', 'cancelled'] as const;
export const TerminalGoalStatus = z.enum(TERMINAL_GOAL_STATUSES);
export type TerminalGoalStatus = z.infer<typeof TerminalGoalStatus>;

/** The allowed status changes. Terminal statuses have no way out; a status never "changes" to itself. */
export const GOAL_TRANSITIONS: Readonly<Record<GoalStatus, readonly GoalStatus[]>> = {
  // failed: the submission is unusable (e.g. translation failed before the pursuit started)
  queued: ['running', 'cancelled', 'failed'],
  running: ['waiting_for_input', 'completed', 'failed', 'abandoned', 'cancelled'],
  // running: answered or timed out (silence means no); failed: wall clock ran out while waiting
  waiting_for_input: ['running', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  abandoned: [],
  cancelled: [],
};

export function canTransition(from: GoalStatus, to: GoalStatus): boolean {
  return GOAL_TRANSITIONS[from].includes(to);
}

export function isTerminalStatus(status: GoalStatus): status is TerminalGoalStatus {
  return (TERMINAL_GOAL_STATUSES as readonly GoalStatus[]).includes(status);
}
