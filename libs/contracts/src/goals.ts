import { z } from 'zod';
import { PursuitAssessment, ResolutionStatus, WorkspaceState } from './agent-loop';
import {
  EpochMs,
  GoalId,
  IdempotencyKey,
  InteractionId,
  InvocationId,
  JsonObject,
  Label,
  Lang,
  SchemaVersion,
  Text,
  ThreadId,
  Timestamp,
  TokenUsage,
  ToolName,
} from './common';
import { ErrorEnvelope } from './errors';
import { GoalStatus, TerminalGoalStatus } from './goal-status';
import { AnswerCitation } from './rag';
import { Traceparent } from './telemetry';

export const MAX_BELIEFS = 50;
export const MAX_BELIEF_CHARS = 2_000;
export const MAX_REQUEST_CHARS = 20_000;

/** Bounds of a pursuit. Absent fields take the orchestrator's configured defaults. */
export const GoalLimits = z.strictObject({
  maxSteps: z.number().int().min(1).max(1_000).optional(),
  /** Discovery rounds per step (the original's `max_iter`). */
  maxIterations: z.number().int().min(1).max(50).optional(),
  wallClockMs: z
    .number()
    .int()
    .min(1_000)
    .max(24 * 60 * 60_000)
    .optional(),
  tokenBudget: z.number().int().min(1).max(100_000_000).optional(),
});
export type GoalLimits = z.infer<typeof GoalLimits>;

export const LimitHit = z.enum(['max_steps', 'max_iterations', 'wall_clock', 'token_budget']);
export type LimitHit = z.infer<typeof LimitHit>;

export const GoalSource = z.enum(['user', 'autonomous']);
export type GoalSource = z.infer<typeof GoalSource>;

export const Beliefs = z.array(z.string().min(1).max(MAX_BELIEF_CHARS)).max(MAX_BELIEFS);
export type Beliefs = z.infer<typeof Beliefs>;

/**
 * What the gateway publishes to the `GOALS` stream. Exactly one of `request` (to be translated into a goal) and `goal`
 * (already a goal statement, e.g. from an autonomous decider) is set.
 */
/**
 * The kind of agent that pursues a goal. `novelrag` is the four-phase action-determine loop (assess, discover, refine,
 * decide), the default: a submission or record without `agent` (every record written before the field existed) is
 * pursued by it. `assistant` plans, runs independent tool tasks in parallel and answers with suggested next inputs;
 * `rag` answers the request as a question about the repository, with cited sources.
 */
export const AgentKind = z.enum(['novelrag', 'assistant', 'rag']);
export type AgentKind = z.infer<typeof AgentKind>;
export const DEFAULT_AGENT_KIND: AgentKind = 'novelrag';

/**
 * What a client says about a goal (the body of `POST /v1/goals`, the rest of a submission is the gateway's): one shape
 * for the REST API and the bus, so neither repeats the other.
 */
export const goalInputShape = {
  threadId: ThreadId.optional(),
  request: z.string().min(1).max(MAX_REQUEST_CHARS).optional(),
  goal: z.string().min(1).max(MAX_REQUEST_CHARS).optional(),
  lang: Lang.optional(),
  limits: GoalLimits.optional(),
  /** Who pursues the goal (absent: `novelrag`). */
  agent: AgentKind.optional(),
};

/** Exactly one of `request` and `goal`. */
export function requireRequestOrGoal(
  value: { request?: string | undefined; goal?: string | undefined },
  ctx: z.core.$RefinementCtx,
): void {
  const has = (v: string | undefined) => v !== undefined;
  if (has(value.request) === has(value.goal)) {
    ctx.addIssue({
      code: 'custom',
      path: [has(value.request) ? 'goal' : 'request'],
      message: 'exactly one of "request" and "goal" must be set',
    });
  }
}

export const GoalSubmission = z
  .strictObject({
    schemaVersion: SchemaVersion,
    goalId: GoalId,
    ...goalInputShape,
    beliefs: Beliefs,
    submittedAt: Timestamp,
    idempotencyKey: IdempotencyKey.optional(),
    source: GoalSource,
    /** For autonomous goals: which decider produced it and why (shown in traces). */
    decider: z.strictObject({ name: Label, context: Text.optional() }).optional(),
  })
  .superRefine(requireRequestOrGoal);
export type GoalSubmission = z.infer<typeof GoalSubmission>;

/** The plan of one step, as executed. */
export const StepPlan = z.strictObject({
  tool: ToolName,
  params: JsonObject,
  reason: Text,
});
export type StepPlan = z.infer<typeof StepPlan>;

export const StepStatus = z.enum(['success', 'failed', 'cancelled']);
export type StepStatus = z.infer<typeof StepStatus>;

export const StepOutcome = z
  .strictObject({
    status: StepStatus,
    result: Text.optional(),
    error: ErrorEnvelope.optional(),
    invocationId: InvocationId.optional(),
    startedAt: Timestamp,
    finishedAt: Timestamp,
  })
  .superRefine((value, ctx) => {
    if (value.status === 'success' && value.result === undefined)
      ctx.addIssue({ code: 'custom', path: ['result'], message: 'a successful step has a result' });
    if (value.status !== 'success' && value.error === undefined)
      ctx.addIssue({ code: 'custom', path: ['error'], message: 'a failed or cancelled step has an error' });
  });
export type StepOutcome = z.infer<typeof StepOutcome>;

/** One executed step of a pursuit (checkpointed after every step). */
export const StepRecord = z.strictObject({
  index: z.number().int().nonnegative(),
  plan: StepPlan,
  outcome: StepOutcome,
});
export type StepRecord = z.infer<typeof StepRecord>;

/** The human's answer: `{approved}` for a confirm (or to decline a request), `{text}` for a request. */
export const InteractionAnswerBody = z.union([
  z.strictObject({ approved: z.boolean() }),
  z.strictObject({ text: Text }),
]);
export type InteractionAnswerBody = z.infer<typeof InteractionAnswerBody>;

const pendingBase = {
  interactionId: InteractionId,
  invocationId: InvocationId.optional(),
  tool: ToolName,
  step: z.number().int().nonnegative(),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  /**
   * The human's answer, stored by the gateway before the orchestrator is told: an answer given while no orchestrator
   * holds the goal (crash, takeover) is applied when the re-sent tool call asks the same question again.
   */
  answer: InteractionAnswerBody.optional(),
  answeredBy: Label.optional(),
  answeredAt: Timestamp.optional(),
};

/**
 * The question a tool is waiting on (one at a time per goal), recorded before the human sees it with the exact text
 * shown. Pending while it has no `answer`; answered once it has one; an expired question is removed (silence means no).
 * A crash or takeover does not drop it: the resumed pursuit re-sends the same tool call, whose identical question
 * takes this record over (same id and expiry, not shown again) instead of becoming a new one.
 */
export const PendingInteraction = z.discriminatedUnion('kind', [
  z.strictObject({ ...pendingBase, kind: z.literal('confirm'), message: Text.min(1) }),
  z.strictObject({ ...pendingBase, kind: z.literal('request'), prompt: Text.min(1) }),
]);
export type PendingInteraction = z.infer<typeof PendingInteraction>;

/**
 * The step whose OperationPlan was decided and is being (or may have been) dispatched, recorded before dispatch. After a
 * crash the resumed pursuit re-sends exactly this plan with the same invocation id (the runner then replays its result)
 * instead of asking the model again, so no step runs twice.
 */
export const InFlightStep = z.strictObject({
  index: z.number().int().nonnegative(),
  plan: StepPlan,
  invocationId: InvocationId,
  dispatchedAt: Timestamp,
  /**
   * The further calls decided together with `plan` and dispatched at the same time, as the steps right after `index`
   * (their invocation ids follow from their step numbers). A resumed pursuit re-sends the whole group.
   */
  group: z.array(StepPlan).max(32).optional(),
});
export type InFlightStep = z.infer<typeof InFlightStep>;

/** How a pursuit ended. `resolutionStatus` is the determiner's verdict (absent when a limit or cancel ended it). */
export const GoalOutcome = z.strictObject({
  status: TerminalGoalStatus,
  response: Text,
  reason: Text,
  resolutionStatus: ResolutionStatus.optional(),
  limitHit: LimitHit.optional(),
  error: ErrorEnvelope.optional(),
  steps: z.number().int().nonnegative(),
  tokens: TokenUsage,
  finishedAt: Timestamp,
  /** The citations of an answer (`rag` goals), verified or not, in answer order. */
  citations: z.array(AnswerCitation).optional(),
  /** True for an answer given with what was found when the tool-call cap of a `rag` goal was reached. */
  limited: z.boolean().optional(),
});
export type GoalOutcome = z.infer<typeof GoalOutcome>;

/**
 * The stored state of a goal (KV bucket `goals`, key = goal id). `revision` is the KV revision it was read at (not
 * stored in the value; filled by the reader for optimistic concurrency).
 */
export const GoalRecord = z.strictObject({
  schemaVersion: SchemaVersion,
  goalId: GoalId,
  threadId: ThreadId,
  status: GoalStatus,
  source: GoalSource,
  /** The kind of agent that pursues the goal (absent: `novelrag`, as in records written before the field existed). */
  agent: AgentKind.optional(),
  /** The goal statement; null until a request has been translated. */
  goal: z.string().max(MAX_REQUEST_CHARS).nullable(),
  /** The user's request; null for goals submitted as goal text. */
  request: z.string().max(MAX_REQUEST_CHARS).nullable(),
  lang: Lang.nullable(),
  beliefs: Beliefs,
  limits: GoalLimits,
  steps: z.array(StepRecord),
  assessment: PursuitAssessment.optional(),
  /** The agent kind's own checkpoint state (a JSON object the kind parses with its own schema), when it keeps one. */
  agentState: JsonObject.optional(),
  pendingInteraction: PendingInteraction.optional(),
  /** Set between the decision of a step and its checkpointed outcome. */
  inFlight: InFlightStep.optional(),
  /** Pursuits started for this goal (the first one and each resumption); a goal that keeps failing them is given up. */
  attempts: z.number().int().nonnegative().optional(),
  outcome: GoalOutcome.optional(),
  usage: TokenUsage,
  cancelRequested: z.boolean(),
  /** Epoch ms after which the pursuit stops with `wall_clock` (computed from `limits.wallClockMs` at start). */
  deadline: EpochMs.optional(),
  idempotencyKey: IdempotencyKey.optional(),
  /**
   * W3C `traceparent` of the goal's OpenTelemetry trace (when tracing is on): every pursuit of the goal, a resumption
   * after a crash included, continues this trace.
   */
  traceparent: Traceparent.optional(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  revision: z.number().int().nonnegative().optional(),
});
export type GoalRecord = z.infer<typeof GoalRecord>;

/** Core event on `novelrag.goals.<id>.cancel`. */
export const CancelRequest = z.strictObject({
  schemaVersion: SchemaVersion,
  /** The cancelled goal (also the subject's token). */
  goalId: GoalId,
  /** Why, for people. */
  reason: Label.optional(),
  /** Who asked (API key label or user). */
  requestedBy: Label.optional(),
  /** When it was asked (ISO 8601). */
  at: Timestamp,
});
export type CancelRequest = z.infer<typeof CancelRequest>;

/** Gateway → orchestrator on `novelrag.goals.<id>.interactions.<iid>.answer`. */
export const InteractionAnswer = z.union([
  z.strictObject({
    schemaVersion: SchemaVersion,
    goalId: GoalId,
    interactionId: InteractionId,
    approved: z.boolean(),
    answeredBy: Label.optional(),
    at: Timestamp.optional(),
  }),
  z.strictObject({
    schemaVersion: SchemaVersion,
    goalId: GoalId,
    interactionId: InteractionId,
    text: Text,
    answeredBy: Label.optional(),
    at: Timestamp.optional(),
  }),
]);
export type InteractionAnswer = z.infer<typeof InteractionAnswer>;

/** Reply to an accepted answer (errors: NOT_FOUND, INTERACTION_NOT_PENDING). */
export const InteractionAnswerAck = z.strictObject({
  accepted: z.literal(true),
  /** The answer is stored with the question; no orchestrator took it now, the goal's resumed pursuit applies it. */
  deferred: z.literal(true).optional(),
});
export type InteractionAnswerAck = z.infer<typeof InteractionAnswerAck>;

/** One finished goal as remembered by its thread (the interaction history the prompts read, newest last). */
export const ThreadHistoryEntry = z.strictObject({
  goalId: GoalId,
  request: z.string().max(MAX_REQUEST_CHARS).nullable(),
  goal: z.string().max(MAX_REQUEST_CHARS).nullable(),
  status: TerminalGoalStatus,
  response: Text,
  finishedAt: Timestamp,
});
export type ThreadHistoryEntry = z.infer<typeof ThreadHistoryEntry>;

export const MAX_THREAD_HISTORY = 20;

/**
 * The shared state of a thread (KV bucket `threads`, key = thread id): the workspace its goals build on and the
 * history of its finished goals. Goals of one thread run one after another, so one writer at a time; updates still use
 * the revision (CAS).
 */
export const ThreadRecord = z.strictObject({
  schemaVersion: SchemaVersion,
  threadId: ThreadId,
  workspace: WorkspaceState,
  history: z.array(ThreadHistoryEntry).max(MAX_THREAD_HISTORY),
  updatedAt: Timestamp,
  revision: z.number().int().nonnegative().optional(),
});
export type ThreadRecord = z.infer<typeof ThreadRecord>;

/**
 * Request on `novelrag.autonomous.next`: let the autonomous deciders (backlog, exploration) choose the next goal. With
 * `submit` the orchestrator also stores and queues it like a user goal (source `autonomous`).
 */
export const NextGoalRequest = z.strictObject({
  schemaVersion: SchemaVersion,
  beliefs: Beliefs.optional(),
  threadId: ThreadId.optional(),
  lang: Lang.optional(),
  limits: GoalLimits.optional(),
  submit: z.boolean(),
});
export type NextGoalRequest = z.infer<typeof NextGoalRequest>;

/** Reply: `goal` null when there is nothing worth doing; `goalId`/`status` only when it was submitted. */
export const NextGoalReply = z.strictObject({
  goal: z
    .strictObject({
      description: z.string().min(1).max(MAX_REQUEST_CHARS),
      decider: z.strictObject({ name: Label, context: Text.optional() }),
      goalId: GoalId.optional(),
      threadId: ThreadId.optional(),
      status: GoalStatus.optional(),
    })
    .nullable(),
});
export type NextGoalReply = z.infer<typeof NextGoalReply>;
