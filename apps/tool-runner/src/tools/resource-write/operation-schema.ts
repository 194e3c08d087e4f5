import {
  type ElementInput,
  type JsonObject,
  RESERVED_PROPERTY_NAMES,
  ResourceOperation,
  describeIssues,
} from '@novelrag/contracts';
import { z } from 'zod';

/**
 * How the model writes an operation. Flat, with free-form parts as JSON text, so the schema stays inside the strict
 * structured-output subset (no open maps). Elements use the original's persisted form: `id`, optional `relationships`,
 * properties at top level, children as lists under the aspect's children keys.
 */
export const ModelOperation = z.object({
  type: z.enum(['property', 'splice']),
  /** property: the element; splice: `/aspect` (root list) or the parent element. */
  uri: z.string(),
  /** property: JSON object merged into the element's properties (null deletes a property). */
  data_json: z.string().nullable(),
  /** splice: null for an aspect's root list, else the parent's children key. */
  children_key: z.string().nullable(),
  start: z.number().int().nullable(),
  end: z.number().int().nullable(),
  /** splice: JSON array of the elements inserted at `start` (replacing `[start, end)`). */
  elements_json: z.string().nullable(),
});
export type ModelOperation = z.infer<typeof ModelOperation>;

/** Children keys of the aspect a URI belongs to (its first segment). */
export type ChildrenKeysOf = (uri: string) => readonly string[];

function aspectOf(uri: string): string {
  return uri.split('/')[1] ?? '';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: string | null, what: string): unknown {
  if (text === null) throw new Error(`${what} is required`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
}

/** The persisted element form → `ElementInput` (children under the aspect's children keys, the rest properties). */
export function toElementInput(raw: unknown, childrenKeys: readonly string[], path: string): ElementInput {
  if (!isObject(raw)) throw new Error(`${path} must be an object`);
  const { id, relationships, uri: _uri, aspect: _aspect, ...rest } = raw;
  if (typeof id !== 'string' || id === '')
    throw new Error(`${path}.id is required (a meaningful snake_case id)`);
  const properties: JsonObject = {};
  const children: Record<string, ElementInput[]> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (RESERVED_PROPERTY_NAMES.includes(key)) throw new Error(`${path}.${key} is reserved`);
    if (childrenKeys.includes(key) && Array.isArray(value)) {
      children[key] = value.map((child, i) => toElementInput(child, childrenKeys, `${path}.${key}[${i}]`));
    } else {
      properties[key] = value as JsonObject[string];
    }
  }
  return {
    id,
    properties,
    ...(isObject(relationships) ? { relationships: relationships as ElementInput['relationships'] } : {}),
    ...(Object.keys(children).length > 0 ? { children } : {}),
  };
}

/** @throws Error naming what is wrong, for the model to fix. */
export function toResourceOperation(op: ModelOperation, keysOf: ChildrenKeysOf): ResourceOperation {
  let candidate: unknown;
  if (op.type === 'property') {
    const data = parseJson(op.data_json, 'data_json');
    if (!isObject(data)) throw new Error('data_json must be a JSON object');
    const keys = keysOf(op.uri);
    const refused = Object.keys(data).filter((k) => RESERVED_PROPERTY_NAMES.includes(k) || keys.includes(k));
    if (refused.length > 0) {
      throw new Error(
        `data_json cannot set ${refused.join(', ')} (reserved, or children: change children with a splice)`,
      );
    }
    candidate = { type: 'property', uri: op.uri, data };
  } else {
    const elements = parseJson(op.elements_json ?? '[]', 'elements_json');
    if (!Array.isArray(elements)) throw new Error('elements_json must be a JSON array');
    const keys = keysOf(op.uri);
    const start = op.start ?? 0;
    candidate = {
      type: 'splice',
      location: { uri: op.uri, childrenKey: op.children_key },
      start,
      end: op.end ?? start,
      data: elements.map((e, i) => toElementInput(e, keys, `elements_json[${i}]`)),
    };
    if (op.uri.split('/').length === 2 && op.children_key !== null) {
      throw new Error('a splice on an aspect root list (/aspect) needs children_key null');
    }
    if (op.uri.split('/').length > 2 && (op.children_key === null || !keys.includes(op.children_key))) {
      throw new Error(
        `children_key must be one of the children keys of aspect ${aspectOf(op.uri)}: ${keys.join(', ') || '(none)'}`,
      );
    }
  }
  const parsed = ResourceOperation.safeParse(candidate);
  if (!parsed.success) throw new Error(describeIssues(parsed.error));
  return parsed.data;
}

function convertAll(
  ops: readonly ModelOperation[],
  keysOf: ChildrenKeysOf,
  ctx: z.RefinementCtx,
  prefix: (string | number)[],
): ResourceOperation[] {
  const out: ResourceOperation[] = [];
  ops.forEach((op, i) => {
    try {
      out.push(toResourceOperation(op, keysOf));
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        path: [...prefix, i],
        message: err instanceof Error ? err.message : String(err),
      });
    }
  });
  return out;
}

/** Structured output `resource_operations`: the operations of a write, converted and validated (issues are fed back). */
export function resourceOperationsSchema(keysOf: ChildrenKeysOf) {
  return z
    .object({ operations: z.array(ModelOperation) })
    .transform((value, ctx) => convertAll(value.operations, keysOf, ctx, ['operations']));
}

/** Structured output `perspective_update_operation`: one operation (wrapped: the root must be an object). */
export function singleOperationSchema(keysOf: ChildrenKeysOf) {
  return z
    .object({ operation: ModelOperation })
    .transform((value, ctx) => convertAll([value.operation], keysOf, ctx, ['operation'])[0] ?? null);
}
