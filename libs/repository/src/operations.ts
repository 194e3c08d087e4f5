import { z } from 'zod';
import { ResourceError } from './errors';
import { JsonValue } from './json';
import { type Aspect, DumpedElement } from './model';

/** Merge `data` into an element's properties; a null value deletes the key. (JSON keys as the LLM writes them.) */
export const PropertyOperation = z.object({
  target: z.literal('property'),
  resource_uri: z.string(),
  data: z.record(z.string(), JsonValue),
});
export type PropertyOperation = z.infer<typeof PropertyOperation>;

/** Where a splice happens: an aspect's root list (`children_key` null) or an element's children list. */
export const SpliceLocation = z.object({
  resource_uri: z.string(),
  children_key: z.string().nullable().default(null),
});
export type SpliceLocation = z.infer<typeof SpliceLocation>;

/**
 * Splice: items `[start, end)` of the list are removed and replaced by `data` (null = pure removal). `end`
 * defaults to `start` (pure insert).
 */
export const ResourceOperation = z.object({
  target: z.literal('resource'),
  location: SpliceLocation,
  start: z.int().min(0).default(0),
  end: z.int().min(0).optional(),
  data: z.array(DumpedElement).nullable().default(null),
});
export type ResourceOperation = z.infer<typeof ResourceOperation>;

export const Operation = z.discriminatedUnion('target', [PropertyOperation, ResourceOperation]);
export type Operation = z.infer<typeof Operation>;

/** An aspect as the LLM/config writes it: description, children_keys, and any other keys (kept as metadata). */
export const AspectConfig = z
  .object({ description: z.string().optional(), children_keys: z.array(z.string()).default([]) })
  .catchall(JsonValue);
export type AspectConfig = z.infer<typeof AspectConfig>;

/** Repository-level writes that can be undone and redone; each write's inverse is again one of these. */
export const ReversibleAction = z.discriminatedUnion('method', [
  z.object({ method: z.literal('apply'), op: Operation }),
  z.object({
    method: z.literal('update_relationships'),
    source_uri: z.string(),
    target_uri: z.string(),
    relationships: z.array(z.string()),
  }),
  z.object({
    method: z.literal('add_aspect'),
    name: z.string(),
    config: AspectConfig,
    /** The aspect's elements to re-create (undo of a removal restores the data too). */
    elements: z.array(DumpedElement).default([]),
    /** Position in the aspect order (so undoing a removal puts the aspect back where it was); default: last. */
    index: z.int().min(0).optional(),
  }),
  z.object({ method: z.literal('remove_aspect'), name: z.string() }),
]);
export type ReversibleAction = z.infer<typeof ReversibleAction>;

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** Parses an operation from untrusted input (LLM, bus). Throws VALIDATION_FAILED with the zod issues. */
export function parseOperation(input: unknown): Operation {
  const parsed = Operation.safeParse(input);
  if (!parsed.success) {
    throw new ResourceError('VALIDATION_FAILED', `Invalid operation: ${issuesOf(parsed.error)}`, {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
    });
  }
  return parsed.data;
}

/** Parses an aspect config from untrusted input (LLM, bus). Throws VALIDATION_FAILED. */
export function parseAspectConfig(input: unknown): AspectConfig {
  const parsed = AspectConfig.safeParse(input);
  if (!parsed.success)
    throw new ResourceError('VALIDATION_FAILED', `Invalid aspect config: ${issuesOf(parsed.error)}`);
  return parsed.data;
}

/** Parses a reversible action from untrusted input. Throws VALIDATION_FAILED. */
export function parseAction(input: unknown): ReversibleAction {
  const parsed = ReversibleAction.safeParse(input);
  if (!parsed.success)
    throw new ResourceError('VALIDATION_FAILED', `Invalid action: ${issuesOf(parsed.error)}`);
  return parsed.data;
}

/** The effective `[start, end)` of a splice on a list of `length` items. Throws VALIDATION_FAILED when out of bounds. */
export function spliceBounds(op: ResourceOperation, length: number): { start: number; end: number } {
  const start = op.start;
  const end = op.end ?? op.start;
  if (start > length || end < start || end > length) {
    throw new ResourceError(
      'VALIDATION_FAILED',
      `Splice [${start}, ${end}) is out of bounds for ${op.location.resource_uri}` +
        `${op.location.children_key ? ` (${op.location.children_key})` : ''}, which has ${length} item(s)`,
      { start, end, length, uri: op.location.resource_uri },
    );
  }
  return { start, end };
}

/** A one-line human summary of an action (shown in undo/redo results). */
export function describeAction(action: ReversibleAction): string {
  switch (action.method) {
    case 'apply': {
      const op = action.op;
      if (op.target === 'property') {
        const keys = Object.keys(op.data);
        return `update ${keys.length ? keys.join(', ') : 'no properties'} of ${op.resource_uri}`;
      }
      const where = `${op.location.resource_uri}${op.location.children_key ? ` (${op.location.children_key})` : ''}`;
      const end = op.end ?? op.start;
      const added = (op.data ?? []).map((item) => item.id);
      const removed = end - op.start;
      const parts: string[] = [];
      if (removed > 0) parts.push(`remove ${removed} item(s) at ${op.start}`);
      if (added.length > 0) parts.push(`insert ${added.join(', ')} at ${op.start}`);
      return `${parts.length ? parts.join(' and ') : 'no change'} in ${where}`;
    }
    case 'update_relationships':
      return action.relationships.length
        ? `set relationships ${action.source_uri} -> ${action.target_uri}`
        : `remove relationships ${action.source_uri} -> ${action.target_uri}`;
    case 'add_aspect':
      return `add aspect ${action.name}${action.elements.length ? ` with ${action.elements.length} element(s)` : ''}`;
    case 'remove_aspect':
      return `remove aspect ${action.name}`;
  }
}

/** Converts an AspectConfig (wire/LLM form) to the domain Aspect. */
export function aspectFromConfig(name: string, config: AspectConfig): Aspect {
  const { description, children_keys, ...metadata } = config;
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    childrenKeys: [...children_keys],
    metadata: metadata as Record<string, JsonValue>,
  };
}

/** Converts a domain Aspect back to its AspectConfig form. */
export function configFromAspect(aspect: Aspect): AspectConfig {
  return {
    ...structuredClone(aspect.metadata),
    ...(aspect.description !== undefined ? { description: aspect.description } : {}),
    children_keys: [...aspect.childrenKeys],
  };
}
