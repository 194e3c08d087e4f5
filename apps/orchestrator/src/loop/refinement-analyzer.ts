import { type ActionDecision, ExplorationHints, RefinementDecision } from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import type { z } from 'zod';
import { type ModelCalls, isModelOutputError } from './model-calls';
import type { DecisionInput } from './action-decider';
import { segmentViews, stepViews, toolViews } from './views';

/** The structured-output schema: the wire's RefinementDecision with the hints required (nullable), as strict mode needs. */
export const RefinementVerdict = RefinementDecision.extend({
  exploration_hints: ExplorationHints.nullable(),
});
export type RefinementVerdict = z.infer<typeof RefinementVerdict>;

/** What the decision saw, plus the decision under review. */
export interface AnalysisInput extends DecisionInput {
  readonly decision: ActionDecision;
}

/**
 * Reviews a decision against the context: approve it, or refine with a complete updated assessment and exploration
 * hints. A verdict that stays invalid counts as approval (the decision itself was valid; the review is a second
 * opinion, and the loop's cap already lets unapproved decisions through), with a warning.
 */
export class RefinementAnalyzer {
  constructor(
    private readonly calls: ModelCalls,
    private readonly lang: string | undefined,
  ) {}

  async analyze(input: AnalysisInput): Promise<RefinementVerdict> {
    try {
      return await this.calls.structured(
        'refinement_analysis',
        {
          template: 'analyze_refinement',
          directive: contentDirective(this.lang, input.beliefs),
          instruction: 'Review the decision and give your verdict.',
          variables: {
            goal: input.goal.description,
            assessment: input.assessment,
            decision: JSON.stringify(input.decision, null, 2),
            steps: stepViews(input.steps),
            segments: segmentViews(input.snapshot.segments),
            tools: toolViews(input.catalog, input.expandedTools),
          },
        },
        RefinementVerdict,
        'RefinementDecision',
        input.signal,
      );
    } catch (err) {
      if (!isModelOutputError(err)) throw err;
      input.ctx.warning('Refinement analysis gave no usable verdict; the decision stands');
      return {
        analysis: 'The refinement analysis gave no usable verdict; the decision stands unreviewed.',
        verdict: 'approve',
        approval: { ready: true, confidence: 'low', notes: 'unreviewed: the verdict was invalid' },
        refinement: null,
        exploration_hints: null,
      };
    }
  }
}
