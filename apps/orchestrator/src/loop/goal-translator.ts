import {
  type ChatModel,
  type Goal,
  type GoalTranslator,
  type InteractionHistory,
  ModelOutputError,
  type PromptRenderer,
  userGoal,
} from '@novelrag/agenturn';
import { interactionDirective } from '@novelrag/llm';
import { z } from 'zod';
import { ModelCalls } from './model-calls';
import type { LoopObserver } from './ports';

/** How many recent interactions the translator sees (as the original). */
export const TRANSLATION_HISTORY = 5;

const GoalTranslation = z.object({
  goal: z.string().describe("The goal, in the language of the user's request"),
});

export interface LlmGoalTranslatorOptions {
  readonly model: ChatModel;
  readonly renderer: PromptRenderer;
  /** Template language; the goal itself follows the language of the request (interaction directive). */
  readonly lang?: string;
  readonly observer?: Pick<LoopObserver, 'llmCall'>;
}

/** Request → goal (source `user`), written in the user's language, with beliefs and the recent conversation. */
export class LlmGoalTranslator implements GoalTranslator {
  private readonly calls: ModelCalls;

  constructor(options: LlmGoalTranslatorOptions) {
    this.calls = new ModelCalls(options.model, options.renderer, options.observer, options.lang);
  }

  async translate(
    request: string,
    beliefs: readonly string[],
    history?: InteractionHistory,
    signal?: AbortSignal,
  ): Promise<Goal> {
    const { goal } = await this.calls.structured(
      'goal_translation',
      {
        template: 'translate_request_to_goal',
        directive: interactionDirective(),
        instruction: 'Write the goal for this request.',
        variables: {
          request,
          beliefs: [...beliefs],
          history: history?.formatRecent(TRANSLATION_HISTORY) ?? '',
        },
      },
      GoalTranslation,
      'GoalTranslation',
      signal,
    );
    const description = goal.trim();
    if (description === '') {
      throw new ModelOutputError({
        issues: [{ path: 'goal', message: 'empty goal' }],
        rawOutputLength: goal.length,
        attempts: 1,
        purpose: 'goal_translation',
      });
    }
    return userGoal(description, request);
  }
}
