import { z } from 'zod';
import { AssistantAction, AssistantStateName, AssistantTaskView } from './assistant';
import {
  ActionDecision,
  DiscoveryPlan,
  PursuitAssessment,
  RefinementDecision,
  RefinementPlan,
  ResolutionStatus,
} from './agent-loop';
import {
  EpochMs,
  GoalId,
  InteractionId,
  InvocationId,
  JsonObject,
  Label,
  Lang,
  SchemaVersion,
  Text,
  ThreadId,
  Timestamp,
  ToolName,
} from './common';
import { ErrorEnvelope } from './errors';
import { GoalStatus } from './goal-status';
import {
  GoalLimits,
  GoalOutcome,
  GoalSource,
  InteractionAnswerBody,
  LimitHit,
  PendingInteraction,
  StepStatus,
} from './goals';
import { AnswerCitation, CitationPolicy, RagPath, TracedDocument } from './rag';
import { ModelCallUsage, RuntimeEvent } from './runtime';
import { SpanId, TraceId } from './telemetry';

/**
 * Everything the orchestrator decides, published on `novelrag.trace.<goalId>.<kind>` and kept by the `TRACE` stream.
 * One union discriminated on `kind`. `seq` increases by one per event of a goal (gaps mean lost events), so consumers
 * can order and de-duplicate across redeliveries. Consumers must ignore unknown keys (objects strip them).
 */
const base = {
  schemaVersion: SchemaVersion,
  goalId: GoalId,
  threadId: ThreadId.optional(),
  seq: z.number().int().nonnegative(),
  at: Timestamp,
  /** The step (0-based) the event belongs to, when it belongs to one. */
  step: z.number().int().nonnegative().optional(),
  /** OpenTelemetry trace id (32 hex) of the goal, when tracing is on: links the event to the OTel backend. */
  traceId: TraceId.optional(),
  /** OpenTelemetry span id (16 hex) of the span that was active when the event was written. */
  spanId: SpanId.optional(),
};
/** Discovery round within a step (1-based), for the loop phases. */
const iteration = z.number().int().min(1);

const event = <K extends string, S extends z.ZodRawShape>(kind: K, shape: S) =>
  z.object({ ...base, kind: z.literal(kind), ...shape });

export const GoalAcceptedEvent = event('goal.accepted', {
  source: GoalSource,
  request: Text.nullable(),
  goal: Text.nullable(),
  lang: Lang.nullable(),
  limits: GoalLimits,
});
export const GoalStartedEvent = event('goal.started', {
  /** JetStream delivery count: > 1 means the goal resumed after a crash or redelivery. */
  attempt: z.number().int().min(1),
  resumedFromStep: z.number().int().nonnegative().optional(),
  goal: Text,
});
export const GoalStatusChangedEvent = event('goal.status_changed', {
  from: GoalStatus,
  to: GoalStatus,
  reason: Text.optional(),
});
export const GoalCompletedEvent = event('goal.completed', { outcome: GoalOutcome });
export const GoalFailedEvent = event('goal.failed', {
  outcome: GoalOutcome,
  error: ErrorEnvelope.optional(),
});
/** A goal that ended `abandoned`: a budget ran out (`outcome.limitHit`) or the agent finalized it as incomplete. */
export const GoalAbandonedEvent = event('goal.abandoned', { outcome: GoalOutcome });
export const GoalCancelledEvent = event('goal.cancelled', {
  outcome: GoalOutcome,
  requestedBy: Label.optional(),
});
export const AssessmentEvent = event('assessment', {
  assessment: PursuitAssessment,
  /** Set when a refinement verdict replaced the assessment inside the loop. */
  iteration: iteration.optional(),
});
export const DiscoveryPlanEvent = event('discovery.plan', { iteration, plan: DiscoveryPlan });
export const RefinementPlanEvent = event('refinement.plan', { iteration, plan: RefinementPlan });
export const ContextUpdatedEvent = event('context.updated', {
  iteration,
  segments: z.number().int().nonnegative(),
  excludedUris: z.number().int().nonnegative(),
  nonexistentUris: z.number().int().nonnegative(),
  searches: z.number().int().nonnegative(),
  expandedTools: z.array(ToolName),
});
export const DecisionEvent = event('decision', { iteration, decision: ActionDecision });
export const AnalysisVerdictEvent = event('analysis.verdict', { iteration, verdict: RefinementDecision });
export const OperationDispatchedEvent = event('operation.dispatched', {
  invocationId: InvocationId,
  tool: ToolName,
  params: JsonObject,
  reason: Text,
  deadline: EpochMs,
  attempt: z.number().int().min(1),
});
export const OperationOutcomeEvent = event('operation.outcome', {
  invocationId: InvocationId,
  tool: ToolName,
  status: StepStatus,
  result: Text.optional(),
  error: ErrorEnvelope.optional(),
  durationMs: z.number().int().nonnegative(),
  replayed: z.boolean().optional(),
});
export const InteractionRequestedEvent = event('interaction.requested', { interaction: PendingInteraction });
export const InteractionAnsweredEvent = event('interaction.answered', {
  interactionId: InteractionId,
  answer: InteractionAnswerBody,
  answeredBy: Label.optional(),
});
export const InteractionTimedOutEvent = event('interaction.timed_out', { interactionId: InteractionId });
export const RuntimeTraceEvent = event('runtime', { event: RuntimeEvent });
export const LlmCallEvent = event('llm.call', {
  ...ModelCallUsage.shape,
  /** Set when a tool made the call: the invocation it made it for. */
  invocationId: InvocationId.optional(),
});
export const ResolutionEvent = event('resolution', {
  status: ResolutionStatus,
  response: Text,
  reason: Text,
});
export const LimitHitEvent = event('limit.hit', {
  limit: LimitHit,
  /** The configured bound and the value reached. */
  max: z.number().nonnegative(),
  value: z.number().nonnegative(),
});

/** The assistant kind moved to another state (`round`: thinking rounds so far). */
export const AssistantStateEvent = event('assistant.state', {
  from: AssistantStateName,
  to: AssistantStateName,
  round: z.number().int().nonnegative(),
  reason: Text.optional(),
});
/** The assistant's plan and next action after a thinking round. */
export const AssistantPlanEvent = event('assistant.plan', {
  round: z.number().int().min(1),
  plan: z.array(Text),
  action: AssistantAction,
  analysis: Text,
  tasks: z.array(z.strictObject({ tool: Text, instruction: Text })),
});
/** A group of tool tasks dispatched together (`running`) or finished together (`finished`): they run in parallel. */
export const AssistantToolsEvent = event('assistant.tools', {
  round: z.number().int().min(1),
  phase: z.enum(['running', 'finished']),
  tasks: z.array(AssistantTaskView),
});
/** The assistant's answer with suggested next inputs; `forced` when the thinking rounds ran out first. */
export const AssistantOutputEvent = event('assistant.output', {
  content: Text,
  suggestions: z.array(Text),
  forced: z.boolean(),
});
/** `rag` goals: which path the question takes (answered from the conversation, or after retrieval) and why. */
export const RagRouteEvent = event('rag.route', { path: RagPath, reason: Text });
/** `rag` goals: what a retrieval (`vector_retrieve`) or rerank step returned, in order. */
export const RagRetrieveEvent = event('rag.retrieve', {
  tool: ToolName,
  query: Text.optional(),
  documents: z.array(TracedDocument),
});
/** `rag` goals: a grading step's verdict: the documents kept and those dropped. */
export const RagGradeEvent = event('rag.grade', {
  kept: z.array(TracedDocument),
  dropped: z.array(TracedDocument),
});
/** `rag` goals: the search query rewritten after grading left too little. */
export const RagRewriteEvent = event('rag.rewrite', { query: Text, reason: Text.optional() });
/**
 * `rag` goals: the whole answer (as kept after the citation policy), every citation with whether it was verified, the
 * policy applied, the tool calls made and whether the tool-call cap cut the retrieval short (`limited`).
 */
export const RagAnswerEvent = event('rag.answer', {
  path: RagPath,
  answer: Text,
  citations: z.array(AnswerCitation),
  unverified: z.number().int().nonnegative(),
  policy: CitationPolicy,
  toolCalls: z.number().int().nonnegative(),
  limited: z.boolean(),
});

export const TraceEvent = z.discriminatedUnion('kind', [
  GoalAcceptedEvent,
  GoalStartedEvent,
  GoalStatusChangedEvent,
  GoalCompletedEvent,
  GoalFailedEvent,
  GoalAbandonedEvent,
  GoalCancelledEvent,
  AssessmentEvent,
  DiscoveryPlanEvent,
  RefinementPlanEvent,
  ContextUpdatedEvent,
  DecisionEvent,
  AnalysisVerdictEvent,
  OperationDispatchedEvent,
  OperationOutcomeEvent,
  InteractionRequestedEvent,
  InteractionAnsweredEvent,
  InteractionTimedOutEvent,
  RuntimeTraceEvent,
  LlmCallEvent,
  ResolutionEvent,
  LimitHitEvent,
  AssistantStateEvent,
  AssistantPlanEvent,
  AssistantToolsEvent,
  AssistantOutputEvent,
  RagRouteEvent,
  RagRetrieveEvent,
  RagGradeEvent,
  RagRewriteEvent,
  RagAnswerEvent,
]);
export type TraceEvent = z.infer<typeof TraceEvent>;
export type TraceKind = TraceEvent['kind'];
/** One trace event variant by kind, e.g. `TraceEventOf<'decision'>`. */
export type TraceEventOf<K extends TraceKind> = Extract<TraceEvent, { kind: K }>;

export const TRACE_KINDS = TraceEvent.options.map((o) => o.shape.kind.value) as readonly TraceKind[];
export const TraceKind = z.enum(TRACE_KINDS as [TraceKind, ...TraceKind[]]);

/** Trace kinds after which no further event of the goal follows: one per terminal status, named after it. */
export const FINAL_TRACE_KINDS: readonly TraceKind[] = [
  'goal.completed',
  'goal.failed',
  'goal.abandoned',
  'goal.cancelled',
];
