import { z } from 'zod';
import { ResourceUri, ToolName } from './common';
import { SegmentSpec } from './resources';

/**
 * The payloads of the agent loop (assessment, discovery, relevance, decision, refinement verdict). They are traced and
 * checkpointed, and the LLM-produced ones double as structured-output schemas, so those stay inside the OpenAI strict
 * subset: every field required, `nullable` instead of optional, no records, no unions at the root. Field names are
 * snake_case because the model reads and writes them (same as the original NovelRAG).
 */

/** The assessor's view of a pursuit (7 fields, all required). Same shape as agenturn's `PursuitAssessment`. */
export const PursuitAssessment = z.object({
  finished_tasks: z.array(z.string()).describe('What has been done towards the goal so far'),
  remaining_work_summary: z.string().describe('What is still left to do'),
  required_context: z.string().describe('Information needed before the next action'),
  expected_actions: z.string().describe('The kind of actions expected next'),
  boundary_conditions: z.array(z.string()).describe('Constraints the pursuit must respect'),
  exception_conditions: z.array(z.string()).describe('Situations that should stop or change the plan'),
  success_criteria: z.array(z.string()).describe('How to tell the goal is achieved'),
});
export type PursuitAssessment = z.infer<typeof PursuitAssessment>;

/** Discovery phase: what to search, which URIs to load, which tools to expand. */
export const DiscoveryPlan = z.object({
  discovery_analysis: z.string().describe('Why these searches, resources and tools are needed'),
  search_queries: z
    .array(z.string())
    .describe('Free-text searches to run (synonyms and translations welcome)'),
  query_resources: z.array(z.string()).describe('Resource URIs to load, built only from URIs already shown'),
  expand_tools: z.array(z.string()).describe('Names of collapsed tools to make callable'),
});
export type DiscoveryPlan = z.infer<typeof DiscoveryPlan>;

/** Refinement is needed only when the plan loads something new; expanding tools alone does not count. */
export function discoveryNeedsRefinement(plan: DiscoveryPlan): boolean {
  return plan.search_queries.length > 0 || plan.query_resources.length > 0;
}

export const ResourceProperty = z.object({
  uri: z.string().describe('URI of a loaded resource'),
  property: z.string().describe('Name of the property to hide'),
});
export type ResourceProperty = z.infer<typeof ResourceProperty>;

/** Relevance phase: what to hide, which tools to collapse, the new order of the segments. */
export const RefinementPlan = z.object({
  relevance_analysis: z.string().describe('How relevant each loaded resource is to the goal'),
  exclude_resources: z.array(z.string()).describe('URIs of resources with no relevance'),
  exclude_properties: z.array(ResourceProperty).describe('Low-value properties to hide'),
  collapse_tools: z.array(z.string()).describe('Expanded tools unrelated to the goal'),
  sorted_segments: z.array(z.string()).describe('Every loaded URI, most relevant first'),
});
export type RefinementPlan = z.infer<typeof RefinementPlan>;

/** How a pursuit ends according to the determiner (Finalize), plus `abandoned` for the fallback. */
export const ResolutionStatus = z.enum(['success', 'failed', 'incomplete', 'abandoned']);
export type ResolutionStatus = z.infer<typeof ResolutionStatus>;

/** The statuses the model may pick when it calls the `Finalize` pseudo-tool. */
export const FinalizeStatus = z.enum(['success', 'failed', 'incomplete']);
export type FinalizeStatus = z.infer<typeof FinalizeStatus>;

/** Arguments of the `Finalize` pseudo-tool (tool calling, strict). */
export const FinalizeArgs = z.object({
  status: FinalizeStatus,
  response: z.string().describe('The answer for the user, based on repository data, in the user language'),
  evidence: z.array(z.string()).describe('Facts from the context that support the response'),
  gaps: z.array(z.string()).describe('What is missing or could not be done'),
});
export type FinalizeArgs = z.infer<typeof FinalizeArgs>;

/**
 * The action decision, built from the model's (first) tool call: run a tool, or finalize. `situation_analysis` is the
 * model's text content.
 */
export const ActionDecision = z.discriminatedUnion('decision_type', [
  z.object({
    decision_type: z.literal('execute'),
    situation_analysis: z.string(),
    tool: z.string(),
    params: z.record(z.string(), z.unknown()),
    confidence: z.string(),
    reasoning: z.string(),
  }),
  z.object({
    decision_type: z.literal('finalize'),
    situation_analysis: z.string(),
    status: FinalizeStatus,
    response: z.string(),
    evidence: z.array(z.string()),
    gaps: z.array(z.string()),
  }),
]);
export type ActionDecision = z.infer<typeof ActionDecision>;

export const RefinementApproval = z.object({
  ready: z.boolean(),
  confidence: z.string(),
  notes: z.string(),
});
export type RefinementApproval = z.infer<typeof RefinementApproval>;

/** What a refine verdict asks the next round to load before it plans: searches, URIs and tools to expand. */
export const ExplorationHints = z.object({
  search_terms: z.array(z.string()).describe('Searches to run before the next discovery round'),
  resource_paths: z.array(z.string()).describe('Resource URIs to load, taken from the context shown'),
  tools_to_expand: z.array(z.string()).describe('Collapsed tools the next decision will need'),
});
export type ExplorationHints = z.infer<typeof ExplorationHints>;

/**
 * The refinement analysis of a decision: approve it, or refine with a complete updated assessment whose fields point
 * the next discovery round, plus concrete exploration hints that are applied before that round.
 */
export const RefinementDecision = z.object({
  analysis: z.string().describe('Review of the decision against the context'),
  verdict: z.enum(['approve', 'refine']),
  approval: RefinementApproval.nullable().describe('Set when the verdict is approve'),
  refinement: PursuitAssessment.nullable().describe('Complete updated assessment when the verdict is refine'),
  /** Optional on the wire (older records have none); the loop's structured-output schema makes it required. */
  exploration_hints: ExplorationHints.nullable().optional().describe('Set when the verdict is refine'),
});
export type RefinementDecision = z.infer<typeof RefinementDecision>;

/** One discovery search as remembered by the workspace (shown to the model so it does not repeat itself). */
export const SearchHistoryItem = z.strictObject({
  query: z.string().max(2_000),
  aspect: z.string().max(128).nullable(),
  uris: z.array(ResourceUri).max(100),
});
export type SearchHistoryItem = z.infer<typeof SearchHistoryItem>;

/**
 * The serialisable state of a thread's workspace (the original's ResourceContext plus the loop's expanded tools):
 * segments in display order with their hidden properties, hidden URIs, URIs found not to exist, the search history and
 * the tools currently expanded. Checkpointed with the thread so that goals of one thread share it and a resumed goal
 * sees what it saw before the crash.
 */
export const WorkspaceState = z.strictObject({
  segments: z.array(SegmentSpec).max(200),
  excludedUris: z.array(ResourceUri).max(1_000),
  nonexistentUris: z.array(z.string().max(2_048)).max(1_000),
  searchHistory: z.array(SearchHistoryItem).max(200),
  expandedTools: z.array(ToolName).max(200),
});
export type WorkspaceState = z.infer<typeof WorkspaceState>;

/** A fresh workspace: only the root segment `/`, nothing hidden, nothing searched, no tool expanded. */
export function emptyWorkspace(): WorkspaceState {
  return {
    segments: [{ uri: '/', excludedProperties: [] }],
    excludedUris: [],
    nonexistentUris: [],
    searchHistory: [],
    expandedTools: [],
  };
}
