import { z } from 'zod';
import {
  AgentKind,
  Beliefs,
  goalInputShape,
  NextGoalReply,
  NextGoalRequest,
  requireRequestOrGoal,
} from './goals';
import { ErrorCode } from './errors';
import { GoalStatus } from './goal-status';
import { GoalId, ThreadId } from './common';
import { BacklogAddRequest } from './resources';

/**
 * Request bodies and query strings of the public REST API, and the small replies that are not bus messages. The
 * gateway validates with these schemas (coded 400s) and its OpenAPI document is generated from them: one source.
 */

/** `POST /v1/goals`: exactly one of `request` (translated into a goal) and `goal` (used as is). */
export const SubmitGoalBody = z
  .strictObject({
    ...goalInputShape,
    request: goalInputShape.request.meta({
      description: 'What the user wants, translated into a goal',
      example: 'Create a protagonist named 余归 and link her to the Azure Sect',
    }),
    goal: goalInputShape.goal.meta({ description: 'A goal statement used as is (no translation)' }),
    threadId: goalInputShape.threadId.meta({
      description: 'Goals of one thread share history and workspace and run one after another',
      example: 'novel-1',
    }),
    beliefs: Beliefs.optional(),
    agent: AgentKind.optional().meta({
      description:
        'The kind of agent that pursues the goal (default novelrag: the four-phase action-determine loop; ' +
        'assistant: plans, runs independent tools in parallel and answers with suggested next inputs; rag: ' +
        'answers the request as a question about the repository, with cited sources)',
    }),
  })
  .superRefine(requireRequestOrGoal)
  .meta({ description: 'Exactly one of `request` and `goal` is set' });
export type SubmitGoalBody = z.infer<typeof SubmitGoalBody>;

/** `POST /v1/goals/next`: what the autonomous goal is for; the deciders choose the goal itself. */
export const NextGoalBody = NextGoalRequest.omit({ schemaVersion: true, submit: true });
export type NextGoalBody = z.infer<typeof NextGoalBody>;

/** A page size in a query string (`?limit=20`). */
const QueryLimit = z.coerce.number().int().min(1).max(100);

/** `GET /v1/goals` and `GET /v1/goal-summaries`: filters and cursor pagination. */
export const ListGoalsQuery = z.strictObject({
  status: GoalStatus.optional(),
  threadId: ThreadId.optional(),
  agent: AgentKind.optional().meta({
    description: 'Only goals of this agent kind (goals submitted without one are `novelrag`)',
  }),
  limit: QueryLimit.optional().meta({ description: 'Page size (default 20)' }),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .meta({ description: 'The `nextCursor` of the previous page' }),
});
export type ListGoalsQuery = z.infer<typeof ListGoalsQuery>;

/** `?limit=` of the operations and backlog listings. */
export const LimitQuery = z.strictObject({ limit: QueryLimit.optional() });
export type LimitQuery = z.infer<typeof LimitQuery>;

/** `POST /v1/backlog`: who wrote it is the gateway's business, not the client's. */
export const BacklogAddBody = BacklogAddRequest.omit({ origin: true });
export type BacklogAddBody = z.infer<typeof BacklogAddBody>;

/** Every error answer of the API. */
export const ErrorBody = z.strictObject({
  code: ErrorCode,
  message: z.string().meta({ example: 'request: Too small: expected string to have >=1 characters' }),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** `202` of `POST /v1/goals`. */
export const GoalAccepted = z.strictObject({
  goalId: GoalId.meta({ example: 'g-3f9c2a7d41b84e0f9a2c' }),
  status: GoalStatus,
});
export type GoalAccepted = z.infer<typeof GoalAccepted>;

/** `POST /v1/goals/next`: the chosen goal (null: nothing worth doing), with its id and status when it was queued. */
export const NextGoalResult = NextGoalReply.extend({
  goalId: GoalId.optional(),
  status: GoalStatus.optional(),
});
export type NextGoalResult = z.infer<typeof NextGoalResult>;

/** `DELETE /v1/threads/{id}/memory`. */
export const MemoryRemoved = z.strictObject({ removed: z.number().int().nonnegative() });
export type MemoryRemoved = z.infer<typeof MemoryRemoved>;
