import { z } from 'zod';
import {
  EpochMs,
  GoalId,
  InvocationId,
  JsonObject,
  Lang,
  SCHEMA_VERSION,
  SchemaVersion,
  ResourceUri,
  ThreadId,
  ToolName,
} from './common';
import { Beliefs } from './goals';
import { SegmentSpec } from './resources';
import { ErrorEnvelope, describeIssues } from './errors';
import { SUBJECT_TOKEN_CHARS } from './subjects';

/** Largest tool result text the runner passes on (larger ones become TOOL_OUTPUT_TOO_LARGE). */
export const MAX_TOOL_RESULT_CHARS = 100_000;

/** Dot-separated `SubjectToken`s: one regular expression, as every invocation is checked on both ends. */
const SUBJECT_PATTERN = new RegExp(`^${SUBJECT_TOKEN_CHARS}(?:\\.${SUBJECT_TOKEN_CHARS})*$`, 'u');

/** A NATS subject (dot-separated tokens, no wildcards): where a tool sends runtime events and interaction requests. */
export const Subject = z
  .string()
  .max(512)
  .refine((s) => SUBJECT_PATTERN.test(s), 'must be a NATS subject without wildcards');
export type Subject = z.infer<typeof Subject>;

/** The context a tool receives with an invocation: the shape of a `resources.segments` request, maybe empty. */
export const ToolWorkspace = z.strictObject({
  segments: z.array(SegmentSpec).max(200),
  excludedUris: z.array(ResourceUri).max(1_000),
});
export type ToolWorkspace = z.infer<typeof ToolWorkspace>;

/**
 * Orchestrator → tool (request/reply on `novelrag.tools.<tool>.invoke`). `invocationId` is the idempotency key: a
 * retried invocation carries the same id and must not apply its writes twice. The tool must answer before `deadline`.
 */
export const ToolInvocation = z.strictObject({
  schemaVersion: SchemaVersion,
  /** The same for every attempt of one step (and after an orchestrator restart): the key of at-most-once execution. */
  invocationId: InvocationId,
  /** The goal the call belongs to; its cancel subject is `novelrag.goals.<goalId>.cancel`. */
  goalId: GoalId,
  threadId: ThreadId.optional(),
  /** Index of the step within the goal. */
  step: z.number().int().nonnegative(),
  /** The tool's name (the invoke subject's middle token); a tool answers VALIDATION_FAILED when it is not its own. */
  tool: ToolName,
  /** The arguments, already checked against the tool's `input_schema` by the orchestrator (check them again). */
  params: JsonObject,
  /** Epoch milliseconds by which the reply must be sent; later replies are ignored (answer TIMEOUT instead). */
  deadline: EpochMs,
  /** Where the tool publishes `RuntimeEvent`s. */
  runtimeSubject: Subject,
  /** Where the tool sends `InteractionRequest`s (request/reply). */
  interactSubject: Subject,
  /** The language of the goal (a BCP 47 tag such as `en` or `zh`): write user-facing text in it. */
  lang: Lang.optional(),
  /** 1 for the first attempt, incremented on retries with the same invocationId. */
  attempt: z.number().int().min(1).max(100).optional(),
  /**
   * The planner's workspace when it decided this step (segments in order, hidden properties, hidden URIs), so tools that
   * generate content (ResourceWriteTool) read the same context the planner read, via `resources.segments`.
   */
  workspace: ToolWorkspace.optional(),
  /** The goal's beliefs (content directive of tool prompts). */
  beliefs: Beliefs.optional(),
  /**
   * Tokens the goal has left when the call is sent (absent: no limit). A tool reports its model calls as `llm.call`
   * runtime events; once they used more than this, the runner stops the tool with BUDGET_EXHAUSTED.
   */
  tokenBudget: z.number().int().nonnegative().optional(),
});
export type ToolInvocation = z.infer<typeof ToolInvocation>;

/**
 * `schema.safeParse` for an object contract with a `params: JsonObject` field, giving the same answers and, for what it
 * rejects, the same issues, at a fraction of the cost: the object without its params is checked by a compiled copy
 * (`z.compile`, zod's generated fast path) and `params` by `JsonObject` alone. The whole object cannot be compiled,
 * JsonValue being recursive, and its runtime parse pays the cycle guard of recursive schemas (WeakMaps per parse, costly
 * to the garbage collector) for the whole invocation. The two checks together accept exactly what `schema` accepts
 * (`params` is the only field they split); whatever either rejects is parsed again by `schema` itself, so a failure
 * reports exactly what `schema.safeParse` reports. Params nested too deep to check (the stack would overflow) are
 * refused with an issue on `params` instead of throwing.
 */
export function jsonParamsParser<T extends { params: JsonObject }>(
  schema: z.ZodObject & z.ZodType<T>,
): (raw: unknown) => z.ZodSafeParseResult<T> {
  const envelope = z.compile(schema.extend({ params: z.record(z.string(), z.unknown()) }));
  return (raw) => {
    try {
      const outer = envelope.safeParse(raw);
      if (outer.success) {
        const params = JsonObject.safeParse(outer.data['params']);
        if (params.success) return { success: true, data: { ...outer.data, params: params.data } as T };
      }
      return schema.safeParse(raw);
    } catch (err) {
      // zod checks JSON recursively: params nested some thousands deep overflow the stack. Refused, not thrown.
      if (!(err instanceof RangeError)) throw err;
      return {
        success: false,
        error: new z.ZodError([
          { code: 'custom', path: ['params'], message: 'nested too deep to check', input: undefined },
        ]),
      } as z.ZodSafeParseResult<T>;
    }
  };
}

/** `ToolInvocation.safeParse`, the same answers faster (see jsonParamsParser): every invocation is checked on both ends. */
export const safeParseToolInvocation = jsonParamsParser(ToolInvocation);

// Third-party tools answer ToolOutput, so unknown keys are tolerated (kept) for forward compatibility.
const outputExtras = {
  durationMs: z.number().int().nonnegative().optional(),
  /** True when the runner served a cached result for a repeated invocationId instead of running the tool again. */
  replayed: z.boolean().optional(),
};

/** Tool → orchestrator: a text result the model reads, or an error envelope (a failed step, not an exception). */
export const ToolOutput = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('result'),
    result: z.string().max(MAX_TOOL_RESULT_CHARS),
    ...outputExtras,
  }),
  z.looseObject({ type: z.literal('error'), error: ErrorEnvelope, ...outputExtras }),
]);
export type ToolOutput = z.infer<typeof ToolOutput>;

/**
 * What a tool that leaves out an optional promise is taken to promise: nothing (not read-only, not idempotent), and
 * not destructive, so third-party tools are not held up by default confirmations; no `schema_version` means the
 * current one. The one source of these defaults (schemas, decoding, docs).
 */
export const TOOL_METADATA_DEFAULTS = {
  readOnly: false,
  destructive: false,
  idempotent: false,
  schemaVersion: SCHEMA_VERSION,
} as const;

/**
 * The JSON Schema dialects an `input_schema` may declare with `$schema` (the orchestrator converts the schema to
 * validate the model's arguments before dispatch). Without `$schema` the first, draft 2020-12, applies.
 */
export const INPUT_SCHEMA_DIALECTS = [
  'https://json-schema.org/draft/2020-12/schema',
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-04/schema#',
] as const;

/** The decoded metadata of a tool endpoint. */
export const ToolMetadata = z.strictObject({
  /** What the tool does, for the model. */
  description: z.string().min(1).max(10_000),
  /** When the tool may be called (shown to the model). */
  prerequisites: z.string().max(10_000).optional(),
  /** What the result text contains (shown to the model). */
  outputDescription: z.string().max(10_000).optional(),
  /** JSON Schema of `params` (an object schema; `{}` means no parameters). */
  inputSchema: JsonObject.refine(
    (s) => s['type'] === undefined || s['type'] === 'object',
    'input schema must describe an object (type "object")',
  ),
  /** The call's time budget: the orchestrator sets `deadline` this far ahead (its own default when absent). */
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(60 * 60_000)
    .optional(),
  /** The tool never writes. */
  readOnly: z.boolean().default(TOOL_METADATA_DEFAULTS.readOnly),
  /** The tool may delete or overwrite data (the orchestrator may ask for confirmation). */
  destructive: z.boolean().default(TOOL_METADATA_DEFAULTS.destructive),
  /** Running it twice with the same params has the same effect as once. */
  idempotent: z.boolean().default(TOOL_METADATA_DEFAULTS.idempotent),
  /** The contract version the tool speaks. */
  schemaVersion: SchemaVersion.default(TOOL_METADATA_DEFAULTS.schemaVersion),
});
export type ToolMetadata = z.infer<typeof ToolMetadata>;

/** The string keys of a tool endpoint's NATS micro metadata (`Record<string,string>`). */
export const TOOL_METADATA_KEYS = {
  description: 'description',
  prerequisites: 'prerequisites',
  outputDescription: 'output_description',
  inputSchema: 'input_schema',
  timeoutMs: 'timeout_ms',
  readOnly: 'read_only',
  destructive: 'destructive',
  idempotent: 'idempotent',
  schemaVersion: 'schema_version',
} as const satisfies Record<keyof ToolMetadata, string>;

/** The encoded form: what a tool registers as endpoint metadata (third parties write this by hand). */
export const EncodedToolMetadata = z.looseObject({
  description: z.string(),
  prerequisites: z.string().optional(),
  output_description: z.string().optional(),
  input_schema: z.string(),
  timeout_ms: z.string().optional(),
  read_only: z.string().default(String(TOOL_METADATA_DEFAULTS.readOnly)),
  destructive: z.string().default(String(TOOL_METADATA_DEFAULTS.destructive)),
  idempotent: z.string().default(String(TOOL_METADATA_DEFAULTS.idempotent)),
  schema_version: z.string().default(String(TOOL_METADATA_DEFAULTS.schemaVersion)),
});
export type EncodedToolMetadata = z.infer<typeof EncodedToolMetadata>;

/** Thrown by `decodeToolMetadata`; the message names the key and what is wrong with it. */
export class ToolMetadataError extends Error {
  readonly code = 'VALIDATION_FAILED' as const;
  constructor(
    message: string,
    readonly key?: string,
  ) {
    super(message);
    this.name = 'ToolMetadataError';
  }
}

export function encodeToolMetadata(meta: ToolMetadata): Record<string, string> {
  const k = TOOL_METADATA_KEYS;
  const out: Record<string, string> = {
    [k.description]: meta.description,
    [k.inputSchema]: JSON.stringify(meta.inputSchema),
    [k.readOnly]: String(meta.readOnly),
    [k.destructive]: String(meta.destructive),
    [k.idempotent]: String(meta.idempotent),
    [k.schemaVersion]: String(meta.schemaVersion),
  };
  if (meta.prerequisites !== undefined) out[k.prerequisites] = meta.prerequisites;
  if (meta.outputDescription !== undefined) out[k.outputDescription] = meta.outputDescription;
  if (meta.timeoutMs !== undefined) out[k.timeoutMs] = String(meta.timeoutMs);
  return out;
}

function parseBoolean(record: Record<string, string>, key: string, fallback: boolean): boolean {
  const raw = record[key];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new ToolMetadataError(`metadata "${key}" must be "true" or "false", got ${JSON.stringify(raw)}`, key);
}

function parseInteger(record: Record<string, string>, key: string): number | undefined {
  const raw = record[key];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw.trim()))
    throw new ToolMetadataError(
      `metadata "${key}" must be a non-negative integer, got ${JSON.stringify(raw)}`,
      key,
    );
  return Number(raw.trim());
}

/**
 * Decodes endpoint metadata into `ToolMetadata`. Missing or empty `read_only`, `destructive`, `idempotent` and
 * `schema_version` take their `TOOL_METADATA_DEFAULTS`.
 * @throws ToolMetadataError naming the key when a value is missing, not valid JSON, not a boolean/integer, or the
 * result violates `ToolMetadata`.
 */
export function decodeToolMetadata(record: Record<string, string>): ToolMetadata {
  const k = TOOL_METADATA_KEYS;
  const description = record[k.description];
  if (description === undefined || description.trim() === '')
    throw new ToolMetadataError(`metadata "${k.description}" is required`, k.description);
  const rawSchema = record[k.inputSchema];
  if (rawSchema === undefined)
    throw new ToolMetadataError(`metadata "${k.inputSchema}" is required`, k.inputSchema);
  let inputSchema: unknown;
  try {
    inputSchema = JSON.parse(rawSchema);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ToolMetadataError(`metadata "${k.inputSchema}" is not valid JSON: ${reason}`, k.inputSchema);
  }
  const d = TOOL_METADATA_DEFAULTS;
  const version = parseInteger(record, k.schemaVersion) ?? d.schemaVersion;
  const candidate = {
    description,
    prerequisites: record[k.prerequisites] || undefined,
    outputDescription: record[k.outputDescription] || undefined,
    inputSchema,
    timeoutMs: parseInteger(record, k.timeoutMs),
    readOnly: parseBoolean(record, k.readOnly, d.readOnly),
    destructive: parseBoolean(record, k.destructive, d.destructive),
    idempotent: parseBoolean(record, k.idempotent, d.idempotent),
    schemaVersion: version,
  };
  const parsed = ToolMetadata.safeParse(candidate);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const field = first?.path[0];
    const key = typeof field === 'string' && field in k ? k[field as keyof typeof k] : undefined;
    throw new ToolMetadataError(`invalid tool metadata: ${describeIssues(parsed.error)}`, key);
  }
  return parsed.data;
}

/** A tool as the orchestrator sees it after discovery. `available` is false when no instance answered lately. */
export const ToolDescriptor = z.strictObject({
  name: ToolName,
  subject: Subject,
  metadata: ToolMetadata,
  available: z.boolean(),
  /** The micro service that hosts it (name, version) when discovered via `$SRV.INFO`. */
  service: z.strictObject({ name: z.string(), version: z.string() }).optional(),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

/** A tool result cached by invocation id (KV bucket `tool-results`). */
export const ToolResultRecord = z.strictObject({
  schemaVersion: SchemaVersion,
  invocationId: InvocationId,
  goalId: GoalId,
  tool: ToolName,
  output: ToolOutput,
  recordedAt: z.iso.datetime({ offset: true }),
});
export type ToolResultRecord = z.infer<typeof ToolResultRecord>;

/**
 * The other value of a `tool-results` key: "running on runner X until `leaseUntil`". Written with `create` (only one
 * runner wins) before a tool runs, renewed while it runs, replaced by the `ToolResultRecord` when it ends. A claim
 * whose lease passed belongs to a dead runner: another runner may take it over (compare-and-swap on its revision), and
 * the orchestrator retries at once instead of waiting out the call.
 */
export const ToolClaim = z.strictObject({
  schemaVersion: SchemaVersion,
  state: z.literal('running'),
  invocationId: InvocationId,
  goalId: GoalId,
  tool: ToolName,
  runner: z.string().min(1).max(256),
  leaseUntil: EpochMs,
  attempt: z.number().int().min(1),
});
export type ToolClaim = z.infer<typeof ToolClaim>;

/**
 * Event on `novelrag.tools.changed`: a tool host started serving (`up`) or stopped (`down`) these tools. A hint, not
 * the truth: the orchestrator rediscovers through `$SRV.INFO` when it hears one, so a lost or forged event costs
 * nothing but a discovery. Tools that never announce are still found by the periodic refresh.
 */
export const ToolsChanged = z.strictObject({
  schemaVersion: SchemaVersion,
  /** `up` after the endpoints are subscribed, `down` after they are stopped. */
  change: z.enum(['up', 'down']),
  /** The micro service name (`novelrag-tools-<suffix>`). */
  service: z.string().min(1).max(256),
  /** Which process of the service: its micro instance id (`$SRV.INFO` `id`) or any name unique per process; logged only. */
  instance: z.string().min(1).max(256),
  /** The tool names it serves (or served). */
  tools: z.array(ToolName).max(1_000),
});
export type ToolsChanged = z.infer<typeof ToolsChanged>;
