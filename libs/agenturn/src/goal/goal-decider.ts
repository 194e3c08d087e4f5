import type { Goal } from './goal';
import type { InteractionHistory } from './interaction-history';

/** Chooses the next goal to pursue on its own (backlog, exploration, ...). */
export interface GoalDecider {
  /** Resolves to null when there is nothing worth doing. Rejects like `GoalTranslator.translate`. */
  nextGoal(
    beliefs: readonly string[],
    history?: InteractionHistory,
    signal?: AbortSignal,
  ): Promise<Goal | null>;
}
