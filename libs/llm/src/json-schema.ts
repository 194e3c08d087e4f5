import { ConfigError } from '@novelrag/agenturn';
import { z } from 'zod';

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Tightens a JSON Schema to OpenAI's strict subset: every object closes (`additionalProperties: false`) and lists
 * all its properties as required. Zod's `io: 'input'` leaves objects open and fields with defaults optional; the
 * model then simply has to supply them, which the zod parse accepts.
 */
function strictify(node: unknown): unknown {
  if (!isObject(node)) return node;
  const out: JsonObject = { ...node };
  for (const key of ['properties', '$defs', 'definitions'] as const) {
    const map = node[key];
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, strictify(v)]));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = node[key];
    if (Array.isArray(list)) out[key] = list.map(strictify);
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    const sub = node[key];
    if (Array.isArray(sub)) out[key] = sub.map(strictify);
    else if (isObject(sub)) out[key] = strictify(sub);
  }
  if (isObject(node['properties'])) {
    out['required'] = Object.keys(node['properties']);
    if (out['additionalProperties'] === undefined) out['additionalProperties'] = false;
  }
  return out;
}

/**
 * The JSON Schema sent to the provider for a zod schema: the zod input side (what the model must write), draft-7
 * (`anyOf` with `null` for nullable, which OpenAI accepts), without `$schema`, strictified.
 *
 * Throws `ConfigError` when the schema cannot be expressed in JSON Schema (custom types, functions) or its root is
 * not an object (a provider requirement).
 */
export function toProviderJsonSchema(schema: z.ZodType, schemaName: string): JsonObject {
  let raw: JsonObject;
  try {
    raw = z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) as JsonObject;
  } catch (err) {
    throw new ConfigError(`schema "${schemaName}" cannot be expressed as JSON Schema`, { cause: err });
  }
  const { $schema: _drop, ...rest } = raw;
  if (rest['type'] !== 'object') {
    throw new ConfigError(`schema "${schemaName}" must have an object at its root for structured output`);
  }
  return strictify(rest) as JsonObject;
}

/** OpenAI's constraint on `json_schema.name`. */
export const SCHEMA_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
