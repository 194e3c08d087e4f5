import { z } from 'zod';

/**
 * Building blocks shared by every message: the schema version, ids, resource URIs, languages, timestamps, JSON values
 * and size limits. Every wire and stored message carries `schemaVersion`; a reader that meets a version it does not
 * know rejects the message instead of guessing.
 */
export const SCHEMA_VERSION = 1;
export const SchemaVersion = z.literal(SCHEMA_VERSION);
export type SchemaVersion = z.infer<typeof SchemaVersion>;

/** Largest payload any service publishes or accepts (the NATS server's `max_payload` is set to match). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Longest free text in a message (goal requests, tool results, prompts). Well under MAX_MESSAGE_BYTES. */
export const MAX_TEXT_CHARS = 200_000;
/** Longest short label (names, reasons shown in lists, queries). */
export const MAX_LABEL_CHARS = 2_000;
export const MAX_ID_CHARS = 128;
export const MAX_URI_CHARS = 1_024;

/** Free text bounded by MAX_TEXT_CHARS. */
export const Text = z.string().max(MAX_TEXT_CHARS);
export type Text = z.infer<typeof Text>;
/** Non-empty short text bounded by MAX_LABEL_CHARS. */
export const Label = z.string().min(1).max(MAX_LABEL_CHARS);
export type Label = z.infer<typeof Label>;

// Ids travel inside NATS subjects and KV keys, so they use the intersection of both alphabets (no dots, no wildcards).
const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const id = (what: string) =>
  z.string().regex(ID_PATTERN, `${what} must be 1-${MAX_ID_CHARS} characters of A-Z a-z 0-9 _ -`);

export const GoalId = id('goal id');
export type GoalId = z.infer<typeof GoalId>;
export const ThreadId = id('thread id');
export type ThreadId = z.infer<typeof ThreadId>;
/** Identifies one tool invocation; retries reuse it, so it is also the tool's idempotency key. */
export const InvocationId = id('invocation id');
export type InvocationId = z.infer<typeof InvocationId>;
export const InteractionId = id('interaction id');
export type InteractionId = z.infer<typeof InteractionId>;
/** Caller-chosen key that makes a submission or a write idempotent. */
export const IdempotencyKey = id('idempotency key');
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;

/**
 * A tool name: also a NATS micro endpoint name, a subject token and an OpenAI function name, hence the narrow alphabet
 * and the 64-character cap (OpenAI's limit).
 */
export const ToolName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool name must be 1-64 characters of A-Z a-z 0-9 _ -');
export type ToolName = z.infer<typeof ToolName>;

// A URI segment (aspect name or element id): Unicode letters, digits, marks, `_`, `-`, `.` (Chinese ids are normal),
// but never only dots, so `.`/`..` cannot be mistaken for path navigation.
const SEGMENT = String.raw`(?!\.+(?:\/|$))[\p{L}\p{N}\p{M}_.-]+`;
const SEGMENT_PATTERN = new RegExp(`^${SEGMENT}$`, 'u');
const URI_PATTERN = new RegExp(`^(?:\\/|(?:\\/${SEGMENT})+)$`, 'u');

/** One segment of a resource URI: an aspect name or an element id. */
export const ResourceSegment = z
  .string()
  .max(MAX_ID_CHARS)
  .regex(SEGMENT_PATTERN, 'must be Unicode letters, digits, _, - or . (not only dots)');
export type ResourceSegment = z.infer<typeof ResourceSegment>;
/** The name of an aspect (a category of resources such as `character`). */
export const AspectName = ResourceSegment;
export type AspectName = z.infer<typeof AspectName>;
/** The id of an element, unique among its siblings. */
export const ElementId = ResourceSegment;
export type ElementId = z.infer<typeof ElementId>;

/**
 * A resource URI: `/` (root), `/{aspect}`, `/{aspect}/{id}`, and `{parent}/{child}` to any depth. The children key is
 * not part of the URI. No `//`, no trailing `/` except the root.
 */
export const ResourceUri = z
  .string()
  .max(MAX_URI_CHARS)
  .regex(
    URI_PATTERN,
    'must be "/" or "/segment[/segment…]" with segments of Unicode letters, digits, _, - or .',
  );
export type ResourceUri = z.infer<typeof ResourceUri>;

export function isResourceUri(value: unknown): value is ResourceUri {
  return ResourceUri.safeParse(value).success;
}

/** Content/user language: `en`, `zh`, or a BCP-47-like tag (`zh-Hans`, `pt-BR`). */
export const Lang = z
  .string()
  .regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, 'must be a BCP-47 language tag such as en, zh or zh-Hans');
export type Lang = z.infer<typeof Lang>;

/** ISO-8601 timestamp with a zone (`2026-01-02T03:04:05.678Z`). */
export const Timestamp = z.iso.datetime({ offset: true });
export type Timestamp = z.infer<typeof Timestamp>;

/** Milliseconds since the epoch (deadlines, so a receiver can compare without parsing). */
export const EpochMs = z.number().int().nonnegative();
export type EpochMs = z.infer<typeof EpochMs>;

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Any JSON value (recursive). */
export const JsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValue),
    z.record(z.string(), JsonValue),
  ]),
);
/** A JSON object with arbitrary keys (free-form properties, metadata, tool parameters). */
export const JsonObject: z.ZodType<JsonObject> = z.record(z.string(), JsonValue);

/** Token usage of LLM calls. */
export const TokenUsage = z.strictObject({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;
