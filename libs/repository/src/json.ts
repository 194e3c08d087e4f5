import { z } from 'zod';

/** Any JSON value: what free-form properties and aspect metadata may hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const JsonValue: z.ZodType<JsonValue> = z.json() as z.ZodType<JsonValue>;
export const JsonObject: z.ZodType<JsonObject> = z.record(z.string(), JsonValue);

/**
 * JSON with object keys sorted recursively, so equal values always give equal text (used for hashing and for the
 * text that gets embedded). Non-ASCII characters are kept as they are.
 */
export function canonicalJson(value: JsonValue): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key] as JsonValue);
    return out;
  }
  return value;
}

/** A deep copy of a JSON value (records handed out by the tree never alias its internal state). */
export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}
