import { z } from 'zod';
import { GoalId, InteractionId, Label, Lang, ThreadId, Timestamp, ToolName } from './common';
import { GoalStatus, isTerminalStatus } from './goal-status';
import { DEFAULT_AGENT_KIND, GoalSource, type GoalRecord } from './goals';

/** A summary's title is the goal (or request) clipped to this many characters. */
export const SUMMARY_TITLE_CHARS = 200;

/**
 * Where a pursuit is, as far as its stored record tells (live trace events say more): `queued`, `pursuing` (the
 * assessment/discovery/decision loop), `operation` (a tool step dispatched), `interaction` (waiting on a human),
 * `ended` (a terminal status).
 */
export const GoalPhase = z.enum(['queued', 'pursuing', 'operation', 'interaction', 'ended']);
export type GoalPhase = z.infer<typeof GoalPhase>;

/** One row of the goals table: what a listing needs, without steps, results or the assessment. */
export const GoalSummary = z.strictObject({
  goalId: GoalId,
  threadId: ThreadId,
  agent: Label,
  status: GoalStatus,
  phase: GoalPhase,
  source: GoalSource,
  title: z.string().max(SUMMARY_TITLE_CHARS),
  lang: Lang.nullable(),
  steps: z.number().int().nonnegative(),
  /** The tool of the step in flight, when one is. */
  tool: ToolName.nullable(),
  totalTokens: z.number().int().nonnegative(),
  pending: z.strictObject({ interactionId: InteractionId, kind: z.enum(['confirm', 'request']) }).nullable(),
  cancelRequested: z.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
});
export type GoalSummary = z.infer<typeof GoalSummary>;

/** A page of summaries, newest first; `nextCursor` fetches the next page (null on the last). */
export const GoalSummaryPage = z.strictObject({
  goals: z.array(GoalSummary),
  nextCursor: z.string().nullable(),
});
export type GoalSummaryPage = z.infer<typeof GoalSummaryPage>;

function phaseOf(goal: GoalRecord): GoalPhase {
  if (isTerminalStatus(goal.status)) return 'ended';
  if (goal.status === 'queued') return 'queued';
  if (goal.status === 'waiting_for_input' || goal.pendingInteraction) return 'interaction';
  return goal.inFlight ? 'operation' : 'pursuing';
}

/** The summary of a stored goal record (an `agent` field on the record is used when present). */
export function summarizeGoal(goal: GoalRecord): GoalSummary {
  const agent = (goal as { agent?: unknown }).agent;
  const title = goal.goal ?? goal.request ?? '';
  return {
    goalId: goal.goalId,
    threadId: goal.threadId,
    agent: typeof agent === 'string' && agent ? agent : DEFAULT_AGENT_KIND,
    status: goal.status,
    phase: phaseOf(goal),
    source: goal.source,
    title: title.length > SUMMARY_TITLE_CHARS ? `${title.slice(0, SUMMARY_TITLE_CHARS - 1)}…` : title,
    lang: goal.lang,
    steps: goal.steps.length,
    tool: goal.inFlight?.plan.tool ?? null,
    totalTokens: goal.usage.totalTokens,
    pending: goal.pendingInteraction
      ? { interactionId: goal.pendingInteraction.interactionId, kind: goal.pendingInteraction.kind }
      : null,
    cancelRequested: goal.cancelRequested,
    createdAt: goal.createdAt,
    updatedAt: goal.updatedAt,
    finishedAt: goal.outcome?.finishedAt ?? null,
  };
}
