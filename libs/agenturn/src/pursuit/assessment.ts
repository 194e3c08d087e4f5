import { z } from 'zod';
import type { InteractionHistory } from '../goal/interaction-history';
import type { PursuitProgress } from './pursuit';

/**
 * The assessor's view of a pursuit, produced by structured output each step. Every field is required and there are no
 * optional, record or union members, so the schema stays inside the OpenAI strict subset.
 */
export const PursuitAssessment = z.object({
  finished_tasks: z.array(z.string()).describe('What has been done towards the goal so far'),
  remaining_work_summary: z.string().describe('What is still left to do'),
  required_context: z.string().describe('Information needed before the next action'),
  expected_actions: z.string().describe('The kind of actions expected next'),
  boundary_conditions: z.array(z.string()).describe('Constraints the pursuit must respect'),
  exception_conditions: z.array(z.string()).describe('Situations that should stop or change the plan'),
  success_criteria: z.array(z.string()).describe('How to tell the goal is achieved'),
});
export type PursuitAssessment = z.infer<typeof PursuitAssessment>;

export interface AssessProgressOptions {
  readonly beliefs: readonly string[];
  /** The assessment of the previous step, so the assessor refines it instead of starting over (null at step one). */
  readonly previousAssessment: PursuitAssessment | null;
  readonly history?: InteractionHistory;
  readonly signal?: AbortSignal;
}

/** Assesses how far a pursuit has come and what remains. */
export interface PursuitAssessor {
  /** Rejects with `CancelledError` on abort and with model errors when the model fails. */
  assessProgress(pursuit: PursuitProgress, options: AssessProgressOptions): Promise<PursuitAssessment>;
}
