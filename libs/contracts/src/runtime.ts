import { z } from 'zod';
import { GoalId, InvocationId, JsonObject, Label, SchemaVersion, Text, Timestamp } from './common';
import { ErrorEnvelope } from './errors';

/**
 * Runtime calls from a running tool back to its goal (the distributed `ExecutionContext`). Tools may be third-party
 * code, so these objects tolerate (and drop) unknown keys instead of rejecting them.
 */

const runtimeBase = {
  schemaVersion: SchemaVersion,
  goalId: GoalId,
  invocationId: InvocationId,
  step: z.number().int().nonnegative(),
  at: Timestamp,
};

export const RuntimeLogLevel = z.enum(['debug', 'info', 'warning', 'error']);
export type RuntimeLogLevel = z.infer<typeof RuntimeLogLevel>;

/** Priority of a backlog item: 0 (lowest) to 10 (highest). */
export const BacklogPriority = z.number().int().min(0).max(10);
export type BacklogPriority = z.infer<typeof BacklogPriority>;
export const DEFAULT_BACKLOG_PRIORITY = 5;

/** One model call: what it was for, the model that answered, its tokens and time (never content). */
export const ModelCallUsage = z.object({
  /** The phase or tool step that called (`pursuit_assessment`, `context_discovery`, `aspect_metadata`, …). */
  purpose: Label,
  model: Label,
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  latencyMs: z.number().int().nonnegative(),
  attempts: z.number().int().min(1),
  ok: z.boolean(),
  error: ErrorEnvelope.optional(),
});
export type ModelCallUsage = z.infer<typeof ModelCallUsage>;

/** Fire-and-forget event on `novelrag.goals.<id>.runtime`. */
export const RuntimeEvent = z.discriminatedUnion('kind', [
  z.object({ ...runtimeBase, kind: z.literal('debug'), message: Text }),
  z.object({ ...runtimeBase, kind: z.literal('info'), message: Text }),
  z.object({ ...runtimeBase, kind: z.literal('warning'), message: Text }),
  z.object({ ...runtimeBase, kind: z.literal('error'), message: Text }),
  /** Text meant for the user, not a log line. */
  z.object({ ...runtimeBase, kind: z.literal('output'), message: Text }),
  z.object({
    ...runtimeBase,
    kind: z.literal('progress'),
    key: Label,
    value: z.string().max(10_000),
    description: z.string().max(10_000).optional(),
  }),
  /**
   * A model call the tool made (usage only, never content): counted against the goal's token budget and traced as the
   * goal's `llm.call` with the invocation's id.
   */
  z.object({ ...runtimeBase, kind: z.literal('llm.call'), ...ModelCallUsage.shape }),
  /** A follow-up item for later goals (stored in the resource service's backlog). */
  z.object({
    ...runtimeBase,
    kind: z.literal('backlog'),
    content: JsonObject,
    priority: BacklogPriority.optional(),
  }),
]);
export type RuntimeEvent = z.infer<typeof RuntimeEvent>;
export type RuntimeEventKind = RuntimeEvent['kind'];

/** Longest a tool may ask a human to wait (the orchestrator also caps by the goal's deadline). */
export const MAX_INTERACTION_TIMEOUT_MS = 24 * 60 * 60_000;

const interactionBase = {
  schemaVersion: SchemaVersion,
  goalId: GoalId,
  invocationId: InvocationId,
  step: z.number().int().nonnegative(),
  timeoutMs: z.number().int().min(1_000).max(MAX_INTERACTION_TIMEOUT_MS).optional(),
};

/** Tool → orchestrator request/reply on `novelrag.goals.<id>.interact`; answered with `Reply<InteractionReply>`. */
export const InteractionRequest = z.discriminatedUnion('kind', [
  z.object({ ...interactionBase, kind: z.literal('confirm'), message: Text.min(1) }),
  z.object({ ...interactionBase, kind: z.literal('request'), prompt: Text.min(1) }),
]);
export type InteractionRequest = z.infer<typeof InteractionRequest>;

/**
 * The outcome of an interaction: `{approved}` for a confirm, `{text}` for a request (`{approved: false}` when the human
 * declined to answer), `{timedOut: true}` when nobody answered in time (tools treat it as a decline). Cancellation of
 * the goal arrives as an error reply with code CANCELLED.
 */
export const InteractionReply = z.union([
  z.strictObject({ approved: z.boolean() }),
  z.strictObject({ text: Text }),
  z.strictObject({ timedOut: z.literal(true) }),
]);
export type InteractionReply = z.infer<typeof InteractionReply>;
