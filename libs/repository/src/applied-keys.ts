import { z } from 'zod';
import { ResourceError } from './errors';
import type { JsonValue } from './json';

/** One applied idempotency key: when it was applied and the reply its first apply returned. */
export const AppliedKey = z.object({
  key: z.string().min(1),
  /** ISO-8601 time of the apply. */
  at: z.string(),
  /**
   * The reply as JSON text. Text rather than nested JSON: stores copy the history document on every write, and a
   * thousand replies as objects made that copy cost milliseconds per write (a string is copied in one piece).
   */
  reply: z.string(),
});
export type AppliedKey = z.infer<typeof AppliedKey>;

/** The persisted form of AppliedKeys, oldest first. */
export const AppliedKeysJson = z.array(AppliedKey);
export type AppliedKeysJson = z.infer<typeof AppliedKeysJson>;

export const DEFAULT_APPLIED_KEYS_MAX = 1_000;
/** As long as the tool-runner keeps invocation results (contracts `BucketTtls.toolResultsMs`). */
export const DEFAULT_APPLIED_KEYS_MAX_AGE_MS = 24 * 60 * 60_000;
export const DEFAULT_APPLIED_KEYS_MAX_BYTES = 2 * 1024 * 1024;
/** Keys this young survive the count and byte bounds (a retry comes within a tool call's timeout and a resume). */
export const DEFAULT_APPLIED_KEYS_PROTECTED_MS = 15 * 60_000;
/** The bound that even protected keys give way to, in multiples of `maxBytes`. */
const HARD_BYTES_FACTOR = 4;

export interface AppliedKeysOptions {
  /** Most keys kept; the oldest are forgotten first. Default 1000. */
  readonly max?: number;
  /** Keys older than this are forgotten. Default 24 h. */
  readonly maxAgeMs?: number;
  /**
   * Most reply bytes (UTF-8 JSON) kept: the record is rewritten with every write, so a few huge replies must not
   * make every later write slow. The newest key is kept whatever its size. Default 2 MiB.
   */
  readonly maxBytes?: number;
  /**
   * Keys younger than this are kept beyond `max` and `maxBytes` (up to 4 × `maxBytes`): a large write must not make
   * the key of the write just before it forgotten while its retry may still come. Default 15 min.
   */
  readonly protectedMs?: number;
  readonly clock?: () => Date;
}

interface Entry {
  readonly key: string;
  readonly at: string;
  readonly atMs: number;
  /** JSON text. */
  readonly reply: string;
  readonly bytes: number;
}

type Limits = Required<Omit<AppliedKeysOptions, 'clock'>> & { readonly clock: () => Date };

/**
 * The idempotency keys of recent applies with their replies, bounded by count, age and reply bytes (a key past
 * any bound is forgotten, and an apply with it runs again). Immutable: `with` returns a new record, so a write that
 * fails keeps the previous record by reference, exactly like the undo log is restored.
 */
export class AppliedKeys {
  private constructor(
    private readonly entries: ReadonlyMap<string, Entry>,
    private readonly limits: Limits,
  ) {}

  static empty(options: AppliedKeysOptions = {}): AppliedKeys {
    return new AppliedKeys(new Map(), limitsOf(options));
  }

  /** Rebuilds the record from its JSON form, applying the current bounds. Throws VALIDATION_FAILED when malformed. */
  static fromJSON(json: unknown, options: AppliedKeysOptions = {}): AppliedKeys {
    const parsed = AppliedKeysJson.safeParse(json);
    if (!parsed.success) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `Invalid applied idempotency keys: ${parsed.error.issues[0]?.message ?? 'malformed'}`,
      );
    }
    const entries = new Map<string, Entry>();
    for (const item of parsed.data) {
      if (!isJsonText(item.reply)) {
        throw new ResourceError(
          'VALIDATION_FAILED',
          `Invalid applied idempotency keys: the reply of ${item.key}`,
        );
      }
      entries.delete(item.key);
      entries.set(item.key, entryOf(item.key, item.at, item.reply));
    }
    const limits = limitsOf(options);
    return new AppliedKeys(prune(entries, limits), limits);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The reply recorded for `key` (a copy), or undefined when the key is unknown or older than the age bound. */
  get(key: string): JsonValue | undefined {
    const entry = this.entries.get(key);
    if (!entry || this.expired(entry)) return undefined;
    return JSON.parse(entry.reply) as JsonValue;
  }

  /**
   * A new record with `key` applied now with `reply` (stored as JSON text), the bounds applied. Throws a TypeError
   * when `reply` is not serialisable.
   */
  with(key: string, reply: unknown): AppliedKeys {
    const text = JSON.stringify(reply ?? null) as string | undefined;
    if (text === undefined) throw new TypeError(`The reply recorded for ${key} is not JSON`);
    const entries = new Map(this.entries);
    entries.delete(key);
    entries.set(key, entryOf(key, this.limits.clock().toISOString(), text));
    return new AppliedKeys(prune(entries, this.limits), this.limits);
  }

  /** Oldest first. */
  toJSON(): AppliedKeysJson {
    return [...this.entries.values()].map(({ key, at, reply }) => ({ key, at, reply }));
  }

  private expired(entry: Entry): boolean {
    return this.limits.clock().getTime() - entry.atMs > this.limits.maxAgeMs;
  }
}

function entryOf(key: string, at: string, reply: string): Entry {
  const atMs = Date.parse(at);
  return {
    key,
    at,
    // An unreadable time counts as old: the entry goes at the next prune rather than living forever.
    atMs: Number.isNaN(atMs) ? 0 : atMs,
    reply,
    bytes: Buffer.byteLength(reply, 'utf8'),
  };
}

function limitsOf(options: AppliedKeysOptions): Limits {
  const limits = {
    max: options.max ?? DEFAULT_APPLIED_KEYS_MAX,
    maxAgeMs: options.maxAgeMs ?? DEFAULT_APPLIED_KEYS_MAX_AGE_MS,
    maxBytes: options.maxBytes ?? DEFAULT_APPLIED_KEYS_MAX_BYTES,
    protectedMs: options.protectedMs ?? DEFAULT_APPLIED_KEYS_PROTECTED_MS,
    clock: options.clock ?? (() => new Date()),
  };
  for (const [name, value] of Object.entries({
    max: limits.max,
    maxAgeMs: limits.maxAgeMs,
    maxBytes: limits.maxBytes,
  })) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`AppliedKeys ${name} must be a positive integer`);
  }
  if (!Number.isInteger(limits.protectedMs) || limits.protectedMs < 0)
    throw new RangeError('AppliedKeys protectedMs must be a non-negative integer');
  return limits;
}

/**
 * Drops expired entries, then the oldest ones beyond the count and byte bounds (keeping at least the newest), except
 * entries younger than `protectedMs` while the replies stay within the hard byte bound.
 */
function prune(entries: Map<string, Entry>, limits: Limits): Map<string, Entry> {
  const now = limits.clock().getTime();
  for (const [key, entry] of entries) if (now - entry.atMs > limits.maxAgeMs) entries.delete(key);
  let bytes = 0;
  for (const entry of entries.values()) bytes += entry.bytes;
  for (const [key, entry] of entries) {
    if (entries.size <= 1 || (entries.size <= limits.max && bytes <= limits.maxBytes)) break;
    const young = now - entry.atMs < limits.protectedMs;
    if (young && bytes <= limits.maxBytes * HARD_BYTES_FACTOR) break; // entries are oldest first: all later are young
    entries.delete(key);
    bytes -= entry.bytes;
  }
  return entries;
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
