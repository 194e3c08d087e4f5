import type { ChatModel, GoalTranslator, PromptRenderer } from '@novelrag/agenturn';
import type { ContextLogger, GoalStore, ThreadLeases, ThreadStore, TracePublisher } from '@novelrag/bus';
import type { AgentRegistry } from '../agents';
import type { RunningGoals } from '../bus/running-goals';
import type { LlmGoalTranslatorOptions, ResourceReader } from '../loop';
import type { ToolExecutorFactory } from '../tools/executor-factory';
import type { ToolRegistry } from '../tools/tool-registry';
import type { BacklogSink } from './execution-context';

export type { PursuitResult } from './stop';

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
  readonly store: GoalStore;
  readonly threads: ThreadStore;
  readonly leases: ThreadLeases;
  /** The catalog of tools the agents may call, looked up again for names it does not offer. */
  readonly tools: Pick<ToolRegistry, 'live' | 'discoverFor'>;
  /** Builds the tool executor of each pursuit. */
  readonly executors: ToolExecutorFactory;
  /** The agent kinds, by the name a goal gives in `agent`. */
  readonly agents: AgentRegistry;
  readonly publisher: TracePublisher;
  readonly model: ChatModel;
  readonly renderer: PromptRenderer;
  readonly resources: ResourceReader;
  readonly running: RunningGoals;
  readonly backlog: BacklogSink;
  readonly settings: PursuitSettings;
  readonly log: ContextLogger;
  /** The request → goal translator (default: LlmGoalTranslator). */
  readonly translator?: (options: LlmGoalTranslatorOptions) => GoalTranslator;
}

export interface Delivery {
  /** JetStream delivery count (1 = first). */
  readonly attempt: number;
  /** Stream sequence (the goal's place in its thread's queue). */
  readonly seq: number;
  /** Keeps the message from being redelivered while we wait or work. */
  keepAlive(): void;
  /**
   * Says the goal is past its pickup (its pursuit starts) or waits for its thread: the consumer may take in another
   * goal (`GoalConsumerOptions.maxStarting`). Idempotent; absent where nobody counts.
   */
  started?(): void;
}
