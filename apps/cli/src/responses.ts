import { GoalRecord, ToolDescriptor } from '@novelrag/contracts';
import { z } from 'zod';

/**
 * Schemas of the gateway's REST answers that are not bus contracts as such (the gateway adds or removes a field).
 * Resource answers reuse the bus contracts directly (the gateway proxies them unchanged).
 */
export const PublicGoal = GoalRecord.omit({ revision: true });
export type PublicGoal = z.infer<typeof PublicGoal>;

export const GoalAccepted = z.object({ goalId: z.string(), status: z.string() });
export type GoalAccepted = z.infer<typeof GoalAccepted>;

export const GoalPage = z.object({ goals: z.array(PublicGoal), nextCursor: z.string().nullable() });
export type GoalPage = z.infer<typeof GoalPage>;

export const AnswerAck = z.object({ accepted: z.literal(true) });

export const ToolList = z.object({
  tools: z.array(
    ToolDescriptor.extend({ instances: z.number().int(), serviceNames: z.array(z.string()).optional() }),
  ),
  invalid: z.array(z.object({ service: z.string(), endpoint: z.string(), reason: z.string() })),
});
export type ToolList = z.infer<typeof ToolList>;

/**
 * `POST /v1/goals/next`: a goal was chosen (`goalId`), or the deciders had nothing to pursue. Loose on purpose: the
 * CLI only needs the goal id, or to know there is none.
 */
export const NextGoalReply = z.looseObject({
  goalId: z.string().optional(),
  status: z.string().optional(),
  goal: z
    .looseObject({
      description: z.string(),
      decider: z.looseObject({ name: z.string(), context: z.string().optional() }).optional(),
    })
    .nullable()
    .optional(),
});
export type NextGoalReply = z.infer<typeof NextGoalReply>;
