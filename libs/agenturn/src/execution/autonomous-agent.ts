import type { GoalDecider } from '../goal/goal-decider';
import type { InteractionHistory } from '../goal/interaction-history';
import type { PursuitOutcome } from '../pursuit/pursuit';
import type { GoalExecutor } from './goal-executor';

export interface PursueNextGoalOptions {
  readonly signal?: AbortSignal;
  readonly history?: InteractionHistory;
}

/** Pursues goals it chooses itself through a `GoalDecider`. */
export class AutonomousAgent {
  constructor(
    private readonly decider: GoalDecider,
    private readonly executor: GoalExecutor,
  ) {}

  /**
   * Resolves to null when the decider has no goal. A decider rejection propagates (there is no goal to report an
   * outcome for); once a goal is chosen, the pursuit never rejects (see `GoalExecutor.handleGoal`).
   */
  async pursueNextGoal(options: PursueNextGoalOptions = {}): Promise<PursuitOutcome | null> {
    const { ctx } = this.executor;
    const goal = await this.decider.nextGoal(this.executor.beliefs, options.history, options.signal);
    if (goal === null) {
      ctx.info('No new goals to pursue');
      return null;
    }
    ctx.info(`Decided to pursue new goal: ${goal.description}`);
    return this.executor.handleGoal(goal, options);
  }
}
