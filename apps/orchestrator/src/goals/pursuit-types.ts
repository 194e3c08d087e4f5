import type { NatsConnection } from '@nats-io/transport-node';
import type { ActionDeterminer, ChatModel, GoalTranslator, PromptRenderer } from '@novelrag/agenturn';
import type { ContextLogger, GoalStore, ThreadLeases, ThreadStore, TracePublisher } from '@novelrag/bus';
import type {
  ActionDetermineLoop,
  ActionDetermineLoopOptions,
  LlmGoalTranslatorOptions,
  ResourceReader,
} from '../loop';
import type { ToolRegistry } from '../tools/tool-registry';
import type { BacklogSink } from './goal-context';
import type { RunningGoals } from './running-goals';

export interface PursuitSettings {
  readonly maxSteps: number;
  readonly maxIterations: number;
  readonly minIterations: number;
  readonly wallClockMs: number;
  /** 0 = unlimited. */
  readonly tokenBudget: number;
  readonly interactionTimeoutMs: number;
  readonly threadWaitMs: number;
  readonly toolTimeoutMs: number;
  readonly maxAttempts: number;
  readonly defaultLang: string;
  /** How often a running goal re-reads its record for a cancel flag it may have missed as an event. */
  readonly cancelPollMs: number;
  /** Recent thread goals shown to the prompts. */
  readonly historyItems?: number;
  /** How long past its lease a runner's claim on a tool call is still trusted (default 2 s; see ClaimWatch). */
  readonly toolClaimGraceMs?: number;
}

export interface PursuitDeps {
  readonly nc: NatsConnection;
  readonly store: GoalStore;
  readonly threads: ThreadStore;
  readonly leases: ThreadLeases;
  readonly tools: ToolRegistry;
  readonly publisher: TracePublisher;
  readonly model: ChatModel;
  readonly renderer: PromptRenderer;
  readonly resources: ResourceReader;
  readonly running: RunningGoals;
  readonly backlog: BacklogSink;
  readonly settings: PursuitSettings;
  readonly log: ContextLogger;
  /** The planner of a pursuit (default: the ActionDetermineLoop). Tests may script it. */
  readonly planner?: (options: ActionDetermineLoopOptions) => Planner;
  /** The request → goal translator (default: LlmGoalTranslator). */
  readonly translator?: (options: LlmGoalTranslatorOptions) => GoalTranslator;
}

/** What a pursuit needs from its planner: decisions plus the state it checkpoints. */
export type Planner = ActionDeterminer &
  Pick<ActionDetermineLoop, 'workspace' | 'lastAssessment' | 'toolWorkspace'>;

export interface Delivery {
  /** JetStream delivery count (1 = first). */
  readonly attempt: number;
  /** Stream sequence (the goal's place in its thread's queue). */
  readonly seq: number;
  /** Keeps the message from being redelivered while we wait or work. */
  keepAlive(): void;
}

/**
 * What to do with the JetStream message: `ack` (terminal and recorded), `retry` (nak with a delay: the thread is busy or
 * the infrastructure failed), `release` (nak now: this instance is shutting down, another one resumes the goal),
 * `drop` (neither: another instance took the goal over and holds a newer delivery of it).
 */
export type PursuitResult = 'ack' | 'retry' | 'release' | 'drop';
