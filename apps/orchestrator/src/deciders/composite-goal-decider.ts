import type { Goal, GoalDecider, InteractionHistory } from '@novelrag/agenturn';
import type { ResourceReader } from '../loop/ports';
import type { RandomSource } from './decider-options';
import { weightedIndex } from './weighted';

export interface CompositeGoalDeciderOptions {
  /** Absent when no backlog is configured. */
  readonly backlog?: GoalDecider;
  readonly exploration: GoalDecider;
  readonly resources: ResourceReader;
  readonly random?: RandomSource;
  /** Base weights (default 2 each); the backlog weight is scaled by the backlog size. */
  readonly weights?: { readonly backlog?: number; readonly exploration?: number };
}

const BACKLOG_SIZE_PROBE = 100;

/**
 * Chooses between the backlog and exploration deciders by weighted chance: the backlog weighs 0 when it is empty and
 * base × min(size / 3, 2) otherwise. A decider that returns null is dropped and another is tried; null when all are.
 */
export class CompositeGoalDecider implements GoalDecider {
  private readonly random: RandomSource;

  constructor(private readonly options: CompositeGoalDeciderOptions) {
    this.random = options.random ?? Math.random;
  }

  async nextGoal(
    beliefs: readonly string[],
    history?: InteractionHistory,
    signal?: AbortSignal,
  ): Promise<Goal | null> {
    const candidates: { decider: GoalDecider; weight: number }[] = [
      { decider: this.options.exploration, weight: this.options.weights?.exploration ?? 2 },
    ];
    if (this.options.backlog) {
      const size = (await this.options.resources.backlogList({ limit: BACKLOG_SIZE_PROBE }, signal)).entries
        .length;
      const base = this.options.weights?.backlog ?? 2;
      candidates.unshift({
        decider: this.options.backlog,
        weight: size === 0 ? 0 : base * Math.min(size / 3, 2),
      });
    }
    let remaining = candidates.filter((c) => c.weight > 0);
    while (remaining.length > 0) {
      const index = weightedIndex(
        remaining.map((c) => c.weight),
        this.random,
      );
      const chosen = remaining[index];
      if (chosen === undefined) return null;
      const goal = await chosen.decider.nextGoal(beliefs, history, signal);
      if (goal !== null) return goal;
      remaining = remaining.filter((_, i) => i !== index);
    }
    return null;
  }
}
