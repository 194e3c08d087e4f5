import {
  type AssessProgressOptions,
  type PursuitAssessor,
  type PursuitProgress,
  describeGoalSource,
} from '@novelrag/agenturn';
import { PursuitAssessment } from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import type { ModelCalls } from './model-calls';
import { stepViews } from './views';

/** How many recent interactions the assessment sees (as the original). */
export const ASSESSMENT_HISTORY = 3;

/**
 * The PursuitAssessor: one structured call per step, given the previous assessment (the original never passed it, so
 * every step started from scratch) and the recent conversation.
 */
export class LlmPursuitAssessor implements PursuitAssessor {
  constructor(
    private readonly calls: ModelCalls,
    private readonly lang: string | undefined,
    /** Used when the options carry no InteractionHistory. */
    private readonly fallbackHistory = '',
  ) {}

  async assessProgress(pursuit: PursuitProgress, options: AssessProgressOptions): Promise<PursuitAssessment> {
    const history = options.history?.formatRecent(ASSESSMENT_HISTORY) ?? this.fallbackHistory;
    return this.calls.structured(
      'pursuit_assessment',
      {
        template: 'assess_pursuit_progress',
        directive: contentDirective(this.lang, options.beliefs),
        instruction: 'Assess the progress of the pursuit.',
        variables: {
          goal: pursuit.goal.description,
          source: describeGoalSource(pursuit.goal.source),
          steps: stepViews(pursuit.executedSteps),
          beliefs: [...options.beliefs],
          // the previous assessment, under the name the shared partial renders
          assessment: options.previousAssessment,
          history,
        },
      },
      PursuitAssessment,
      'PursuitAssessment',
      options.signal,
    );
  }
}
