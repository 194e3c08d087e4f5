import type { ScriptEntry } from '@novelrag/agenturn/testing';
import type { DiscoveryPlan, ExplorationHints, PursuitAssessment, RefinementPlan } from '@novelrag/contracts';
import type { ActionDecision, RefinementDecision } from '@novelrag/contracts';
import type { ContextStats, LlmCallInfo, LoopObserver } from '../ports';

/** Script builders for the loop's phases (unit tests and the cost script). */

export function assessmentOf(remaining: string, extra: Partial<PursuitAssessment> = {}): PursuitAssessment {
  return {
    finished_tasks: ['None identified'],
    remaining_work_summary: remaining,
    required_context: 'None identified',
    expected_actions: 'None identified',
    boundary_conditions: ['None identified'],
    exception_conditions: ['None identified'],
    success_criteria: ['None identified'],
    ...extra,
  };
}

export const assess = (a: PursuitAssessment = assessmentOf('everything')): ScriptEntry => ({
  kind: 'structured',
  schemaName: 'PursuitAssessment',
  respond: a,
});

export const discover = (plan: Partial<DiscoveryPlan> = {}): ScriptEntry => ({
  kind: 'structured',
  schemaName: 'DiscoveryPlan',
  respond: { discovery_analysis: 'plan', search_queries: [], query_resources: [], expand_tools: [], ...plan },
});

export const relevance = (plan: Partial<RefinementPlan> = {}): ScriptEntry => ({
  kind: 'structured',
  schemaName: 'RefinementPlan',
  respond: {
    relevance_analysis: 'ratings',
    exclude_resources: [],
    exclude_properties: [],
    collapse_tools: [],
    sorted_segments: [],
    ...plan,
  },
});

export const callTool = (
  name: string,
  args: Record<string, unknown>,
  content: string | null = 'analysis',
): ScriptEntry => ({
  kind: 'tools',
  respond: { content, toolCalls: [{ id: `call-${name}`, name, arguments: args }] },
});

export const finalize = (
  status: 'success' | 'failed' | 'incomplete',
  response: string,
  extra: { evidence?: string[]; gaps?: string[] } = {},
): ScriptEntry =>
  callTool('Finalize', { status, response, evidence: extra.evidence ?? [], gaps: extra.gaps ?? [] });

export const approve = (): ScriptEntry => ({
  kind: 'structured',
  schemaName: 'RefinementDecision',
  respond: {
    analysis: 'sound',
    verdict: 'approve',
    approval: { ready: true, confidence: 'high', notes: '' },
    refinement: null,
    exploration_hints: null,
  },
});

export const refine = (
  refinement: PursuitAssessment | null,
  hints: Partial<ExplorationHints> | null = null,
): ScriptEntry => ({
  kind: 'structured',
  schemaName: 'RefinementDecision',
  respond: {
    analysis: 'missing prerequisite',
    verdict: 'refine',
    approval: null,
    refinement,
    exploration_hints:
      hints === null ? null : { search_terms: [], resource_paths: [], tools_to_expand: [], ...hints },
  },
});

export type ObservedEvent =
  | { kind: 'llm'; info: LlmCallInfo }
  | { kind: 'assessment'; assessment: PursuitAssessment; iteration?: number }
  | { kind: 'discovery'; iteration: number; plan: DiscoveryPlan }
  | { kind: 'relevance'; iteration: number; plan: RefinementPlan }
  | { kind: 'context'; iteration: number; stats: ContextStats }
  | { kind: 'decision'; iteration: number; decision: ActionDecision }
  | { kind: 'verdict'; iteration: number; verdict: RefinementDecision };

/** Records every observer call in order. */
export class RecordingObserver implements LoopObserver {
  readonly events: ObservedEvent[] = [];
  llmCall(info: LlmCallInfo): void {
    this.events.push({ kind: 'llm', info });
  }
  assessment(assessment: PursuitAssessment, iteration?: number): void {
    this.events.push({ kind: 'assessment', assessment, ...(iteration === undefined ? {} : { iteration }) });
  }
  discoveryPlan(iteration: number, plan: DiscoveryPlan): void {
    this.events.push({ kind: 'discovery', iteration, plan });
  }
  refinementPlan(iteration: number, plan: RefinementPlan): void {
    this.events.push({ kind: 'relevance', iteration, plan });
  }
  contextUpdated(iteration: number, stats: ContextStats): void {
    this.events.push({ kind: 'context', iteration, stats });
  }
  decision(iteration: number, decision: ActionDecision): void {
    this.events.push({ kind: 'decision', iteration, decision });
  }
  verdict(iteration: number, verdict: RefinementDecision): void {
    this.events.push({ kind: 'verdict', iteration, verdict });
  }
  of<K extends ObservedEvent['kind']>(kind: K): Extract<ObservedEvent, { kind: K }>[] {
    return this.events.filter((e): e is Extract<ObservedEvent, { kind: K }> => e.kind === kind);
  }
}
