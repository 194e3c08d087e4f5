// Autonomous goal deciders (backlog, exploration, composite).
export { BacklogGoalDecider } from './backlog-goal-decider';
export { ExplorationGoalDecider } from './exploration-goal-decider';
export { CompositeGoalDecider } from './composite-goal-decider';
export type { CompositeGoalDeciderOptions } from './composite-goal-decider';
export type { GoalDeciderOptions, RandomSource } from './decider-options';
export { RecencyWeighter, weightedIndex } from './weighted';
