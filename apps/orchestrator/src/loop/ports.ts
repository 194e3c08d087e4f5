import type {
  ActionDecision,
  DiscoveryPlan,
  ErrorEnvelope,
  ModelCallUsage,
  PursuitAssessment,
  RefinementDecision,
  RefinementPlan,
} from '@novelrag/contracts';
import type { ResourceService } from '@novelrag/resource-client';

/** One model call as the loop saw it (usage from the ChatResult; `ok: false` with the error code when it threw). */
export interface LlmCallInfo extends Omit<ModelCallUsage, 'error'> {
  readonly error?: ErrorEnvelope;
  /** Set for a call a tool made (reported by the tool for this invocation). */
  readonly invocationId?: string;
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
 * The resource-service as the loop and the goal deciders see it: the part of the ResourceService port they read (the
 * orchestrator passes the NATS one; unit tests the in-memory one on the real repository). Every method rejects with a
 * coded error (BusError) on failure and with CANCELLED when `signal` aborts.
 */
export type ResourceReader = Pick<
  ResourceService,
  'search' | 'segments' | 'aspectsList' | 'backlogList' | 'backlogRemove' | 'operations'
>;
