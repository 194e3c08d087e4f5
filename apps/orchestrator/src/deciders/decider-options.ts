import type { ChatModel, PromptRenderer } from '@novelrag/agenturn';
import type { LoopObserver, ResourceReader } from '../loop/ports';

/** A source of uniform numbers in [0, 1) (Math.random in production, a seeded generator in tests). */
export type RandomSource = () => number;

export interface GoalDeciderOptions {
  readonly model: ChatModel;
  readonly renderer: PromptRenderer;
  readonly resources: ResourceReader;
  /** Content language (templates and language directive). */
  readonly lang?: string;
  readonly observer?: Pick<LoopObserver, 'llmCall'>;
  readonly random?: RandomSource;
}
