// The agent loop (ActionDetermineLoop and its phases), the goal translator and the resource-service port they read.
export type { ContextStats, LlmCallInfo, LoopObserver, ResourceReader } from './ports';
export { ActionDetermineLoop } from './action-determine-loop';
export type { ActionDetermineLoopOptions } from './action-determine-loop';
export { LlmGoalTranslator } from './goal-translator';
export type { LlmGoalTranslatorOptions } from './goal-translator';
export { ModelCalls, cancellable, throwIfAborted } from './model-calls';
export { definitionOf } from './action-decider';
