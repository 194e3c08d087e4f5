import { ConfigError } from '@novelrag/agenturn';
import { z } from 'zod';

type JsonObject = Record<string, unknown>;
type Resolve = (node: JsonObject) => JsonObject;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Follows a local `$ref` (`#/definitions/…` or `#/$defs/…`, the forms zod writes) to its definition. */
function resolverOf(root: JsonObject): Resolve {
  return (node) => {
    let current = node;
    for (let hops = 0; hops < 32 && typeof current['$ref'] === 'string'; hops++) {
      const [, section = '', name = ''] = /^#\/(definitions|\$defs)\/(.+)$/.exec(current['$ref']) ?? [];
      const defs = root[section];
      const target = isObject(defs) ? defs[decodeURIComponent(name)] : undefined;
      if (!isObject(target)) return current;
      current = target;
    }
    return current;
  };
}

/** Whether a schema already accepts `null` (then a null the model sends is a value, not "absent"). */
function acceptsNull(node: JsonObject, resolve: Resolve): boolean {
  const schema = resolve(node);
  const type = schema['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (schema['const'] === null || (Array.isArray(schema['enum']) && schema['enum'].includes(null)))
    return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.some((b) => isObject(b) && acceptsNull(b, resolve))) return true;
  }
  const restricting = ['type', 'const', 'enum', 'anyOf', 'oneOf', 'allOf', '$ref', 'not'];
  return !restricting.some((k) => k in schema);
}

const requiredOf = (node: JsonObject): readonly unknown[] =>
  Array.isArray(node['required']) ? node['required'] : [];

/**
 * Tightens a JSON Schema to OpenAI's strict subset: every object closes (`additionalProperties: false`) and lists
 * all its properties as required. A property that was optional (zod's `io: 'input'` also leaves fields with defaults
 * optional) becomes nullable, so the model can say "no value" instead of inventing one; `restoreAbsent` maps that
 * null back to an absent field before the zod parse.
 */
function strictify(node: unknown, resolve: Resolve): unknown {
  if (!isObject(node)) return node;
  const out: JsonObject = { ...node };
  for (const key of ['$defs', 'definitions'] as const) {
    const map = node[key];
    if (isObject(map))
      out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, strictify(v, resolve)]));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = node[key];
    if (Array.isArray(list)) out[key] = list.map((v) => strictify(v, resolve));
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    const sub = node[key];
    if (Array.isArray(sub)) out[key] = sub.map((v) => strictify(v, resolve));
    else if (isObject(sub)) out[key] = strictify(sub, resolve);
  }
  const props = node['properties'];
  if (isObject(props)) {
    const required = requiredOf(node);
    out['properties'] = Object.fromEntries(
      Object.entries(props).map(([k, v]) => {
        const strict = strictify(v, resolve);
        const optional = !required.includes(k) && isObject(v) && !acceptsNull(v, resolve);
        return [k, optional ? { anyOf: [strict, { type: 'null' }] } : strict];
      }),
    );
    out['required'] = Object.keys(props);
    if (out['additionalProperties'] === undefined) out['additionalProperties'] = false;
  }
  return out;
}

/** The `anyOf`/`oneOf` branch an object value belongs to: the first object branch whose `const` properties match. */
function branchOf(list: readonly unknown[], value: JsonObject, resolve: Resolve): JsonObject | undefined {
  return list
    .filter(isObject)
    .map(resolve)
    .find((branch) => {
      const props = branch['properties'];
      if (!isObject(props)) return false;
      return Object.entries(props).every(
        ([k, p]) => !isObject(p) || !('const' in resolve(p)) || resolve(p)['const'] === value[k],
      );
    });
}

function restoreArray(schema: JsonObject, value: unknown[], resolve: Resolve): unknown[] {
  const prefix = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : [];
  const items = schema['items'];
  return value.map((v, i) =>
    restoreAbsent(prefix[i] ?? (Array.isArray(items) ? items[i] : items), v, resolve),
  );
}

/** Walks an answer along the original (non-strict) schema and drops the nulls that stand for an optional field. */
function restoreAbsent(node: unknown, value: unknown, resolve: Resolve): unknown {
  if (!isObject(node)) return value;
  const schema = resolve(node);
  if (Array.isArray(value)) return restoreArray(schema, value, resolve);
  if (!isObject(value)) return value;
  let out: JsonObject = value;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    const branch = Array.isArray(list) ? branchOf(list, out, resolve) : undefined;
    if (branch) out = restoreAbsent(branch, out, resolve) as JsonObject;
  }
  if (Array.isArray(schema['allOf'])) {
    for (const part of schema['allOf']) out = restoreAbsent(part, out, resolve) as JsonObject;
  }
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  const extra = schema['additionalProperties'];
  const required = requiredOf(schema);
  const restored: JsonObject = {};
  for (const [k, v] of Object.entries(out)) {
    const sub = Object.hasOwn(props, k) ? props[k] : extra;
    if (
      v === null &&
      Object.hasOwn(props, k) &&
      isObject(sub) &&
      !required.includes(k) &&
      !acceptsNull(sub, resolve)
    )
      continue;
    restored[k] = restoreAbsent(sub, v, resolve);
  }
  return restored;
}

/** A provider schema and the mapping from an answer to it back to the zod schema's input. */
export interface ProviderSchema {
  readonly schema: JsonObject;
  /** Drops the nulls the model sent for fields that are optional in the zod schema (null means "absent" there). */
  readonly restore: (answer: unknown) => unknown;
}

/**
 * The JSON Schema sent to the provider for a zod schema: the zod input side (what the model must write), draft-7
 * (`anyOf` with `null` for nullable, which OpenAI accepts), without `$schema`, strictified; plus `restore`, to apply
 * to a parsed answer before the zod parse.
 *
 * Throws `ConfigError` when the schema cannot be expressed in JSON Schema (custom types, functions) or its root is
 * not an object (a provider requirement).
 */
export function providerSchemaOf(schema: z.ZodType, schemaName: string): ProviderSchema {
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
  const resolve = resolverOf(rest);
  return {
    schema: strictify(rest, resolve) as JsonObject,
    restore: (answer) => restoreAbsent(rest, answer, resolve),
  };
}

/** The provider JSON Schema alone (see `providerSchemaOf`). */
export function toProviderJsonSchema(schema: z.ZodType, schemaName: string): JsonObject {
  return providerSchemaOf(schema, schemaName).schema;
}

/** OpenAI's constraint on `json_schema.name`. */
export const SCHEMA_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
