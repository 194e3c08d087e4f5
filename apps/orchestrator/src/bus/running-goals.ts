import type { InteractionAnswer, InteractionAnswerAck, Reply } from '@novelrag/contracts';

/**
 * What the bus handlers may do with a goal this instance is pursuing: cancel it, answer its pending question. (What a
 * running tool says and asks reaches the goal through the tool executor of the call, not through here.)
 */
export interface RunningGoal {
  readonly goalId: string;
  cancel(requestedBy?: string): void;
  answer(answer: InteractionAnswer): Promise<Reply<InteractionAnswerAck>>;
}

/** The goals this instance pursues right now, by id (the owner of a goal is the instance that holds it here). */
export class RunningGoals {
  private readonly goals = new Map<string, RunningGoal>();

  add(goal: RunningGoal): void {
    this.goals.set(goal.goalId, goal);
  }

  remove(goal: RunningGoal): void {
    if (this.goals.get(goal.goalId) === goal) this.goals.delete(goal.goalId);
  }

  get(goalId: string): RunningGoal | undefined {
    return this.goals.get(goalId);
  }

  get size(): number {
    return this.goals.size;
  }
}
