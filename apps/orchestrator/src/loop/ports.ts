import type {
  ActionDecision,
  AspectsListReply,
  BacklogListReply,
  BacklogRemoveReply,
  DiscoveryPlan,
  ErrorEnvelope,
  OperationsListReply,
  PursuitAssessment,
  RefinementDecision,
  RefinementPlan,
  SearchReply,
  SearchRequest,
  SegmentsReply,
  SegmentsRequest,
} from '@novelrag/contracts';

/** One model call as the loop saw it (usage from the ChatResult; `ok: false` with the error code when it threw). */
export interface LlmCallInfo {
  readonly purpose: string;
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly latencyMs: number;
  readonly attempts: number;
  readonly ok: boolean;
  readonly error?: ErrorEnvelope;
}

/** The size of the workspace after a discovery or relevance plan was applied. */
export interface ContextStats {
  readonly segments: number;
  readonly excludedUris: number;
  readonly nonexistentUris: number;
  readonly searches: number;
  readonly expandedTools: string[];
}

/**
 * Everything the loop decides, as it happens (the orchestrator maps each call to the trace event of the same name).
 * All methods are synchronous and must not throw; the loop guards against observers that do anyway.
 */
export interface LoopObserver {
  llmCall(info: LlmCallInfo): void;
  /** `iteration` is set when a refine verdict replaced the assessment inside the loop. */
  assessment(assessment: PursuitAssessment, iteration?: number): void;
  discoveryPlan(iteration: number, plan: DiscoveryPlan): void;
  refinementPlan(iteration: number, plan: RefinementPlan): void;
  contextUpdated(iteration: number, stats: ContextStats): void;
  decision(iteration: number, decision: ActionDecision): void;
  verdict(iteration: number, verdict: RefinementDecision): void;
}

/**
 * The resource-service as the loop and the goal deciders see it. The orchestrator passes `NatsResourceReader`; unit
 * tests pass an in-memory fake. Every method rejects with a coded error (BusError) on failure and with a CANCELLED
 * error when `signal` aborts.
 */
export interface ResourceReader {
  search(req: SearchRequest, signal?: AbortSignal): Promise<SearchReply>;
  segments(req: SegmentsRequest, signal?: AbortSignal): Promise<SegmentsReply>;
  aspects(signal?: AbortSignal): Promise<AspectsListReply>;
  backlogList(limit: number, signal?: AbortSignal): Promise<BacklogListReply>;
  backlogRemove(ids: string[], signal?: AbortSignal): Promise<BacklogRemoveReply>;
  /** Recent undo/redo history, newest first (recency weighting of the exploration decider). */
  operations(limit: number, signal?: AbortSignal): Promise<OperationsListReply>;
}
