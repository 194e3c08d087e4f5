import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ResourceError } from './errors';
import { canonicalJson, cloneJson, JsonObject, JsonValue } from './json';
import { assertValidId, childUri } from './uri';

/**
 * Keys that are never free properties: the element's own fields and store bookkeeping. An aspect's children keys
 * are reserved too, for that aspect's elements.
 */
export const RESERVED_PROPERTY_NAMES: readonly string[] = [
  'id',
  'uri',
  'relationships',
  'aspect',
  'children_keys',
  'embedding',
  'hash',
];

/** A named category of resources. `metadata` is free JSON (the LLM-written schema/constraints live there). */
export const Aspect = z.object({
  name: z.string(),
  description: z.string().optional(),
  childrenKeys: z.array(z.string()),
  metadata: JsonObject,
});
export type Aspect = z.infer<typeof Aspect>;

/** An aspect with its ordered root element ids: what the store persists for an aspect. */
export const AspectRecord = Aspect.extend({ rootIds: z.array(z.string()) });
export type AspectRecord = z.infer<typeof AspectRecord>;

/** `{targetUri: [free-text descriptions]}`, stored on the source element only. */
export const Relationships = z.record(z.string(), z.array(z.string()));
export type Relationships = z.infer<typeof Relationships>;

/**
 * One element, flat: children are referenced by id (ordered, per children key). One record per element is what
 * the stores persist. `parentUri` is null for a root element of its aspect. `children` has exactly the aspect's
 * children keys.
 */
export const ElementRecord = z.object({
  id: z.string(),
  uri: z.string(),
  aspect: z.string(),
  parentUri: z.string().nullable(),
  relationships: Relationships,
  properties: JsonObject,
  children: z.record(z.string(), z.array(z.string())),
});
export type ElementRecord = z.infer<typeof ElementRecord>;

/**
 * The nested, persisted/undo form of the original (`dumped_dict`): `{id, relationships?, ...props,
 * [childKey]: DumpedElement[]}`. Which keys are children is known only with the aspect, so the schema checks just
 * the envelope; `recordsFromDumped` checks the rest.
 */
export interface DumpedElement {
  id: string;
  relationships?: Relationships;
  [key: string]: JsonValue | undefined;
}
export const DumpedElement: z.ZodType<DumpedElement> = z
  .object({ id: z.string().trim(), relationships: Relationships.optional() })
  .catchall(JsonValue) as unknown as z.ZodType<DumpedElement>;

/** The keys an element of `aspect` may not use as properties. */
export function reservedKeys(aspect: Pick<Aspect, 'childrenKeys'>): Set<string> {
  return new Set([...RESERVED_PROPERTY_NAMES, ...aspect.childrenKeys]);
}

/** Throws VALIDATION_FAILED on an invalid aspect name or children keys (reserved or duplicated). */
export function validateAspect(aspect: Aspect): void {
  assertValidId(aspect.name, 'aspect name');
  const seen = new Set<string>();
  for (const key of aspect.childrenKeys) {
    if (key.length === 0 || RESERVED_PROPERTY_NAMES.includes(key) || seen.has(key)) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `Invalid children key ${JSON.stringify(key)} for aspect ${aspect.name}: keys must be non-empty, unique and not one of ${RESERVED_PROPERTY_NAMES.join(', ')}`,
        { aspect: aspect.name, childrenKey: key },
      );
    }
    seen.add(key);
  }
}

// ---- views (original §1.2) -------------------------------------------------------------------------------------

/** The free properties (no id, uri, relationships, aspect or children). */
export function props(record: ElementRecord): JsonObject {
  return cloneJson(record.properties);
}

/** `{id, uri, ...props}`: the text that gets embedded and hashed. */
export function elementDict(record: ElementRecord): JsonObject {
  return { ...props(record), id: record.id, uri: record.uri };
}

/** elementDict + relationships + aspect + child ids by children key (what fetch/search show the model). */
export function contextView(record: ElementRecord): JsonObject {
  const view: JsonObject = {
    ...elementDict(record),
    aspect: record.aspect,
    relationships: cloneJson(record.relationships),
  };
  for (const [key, ids] of Object.entries(record.children)) view[key] = [...ids];
  return view;
}

/** Looks records up by URI (the tree's LUT). */
export type RecordLookup = (uri: string) => ElementRecord | undefined;

function childRecords(lookup: RecordLookup, record: ElementRecord, key: string): ElementRecord[] {
  return (record.children[key] ?? []).map((id) => {
    const child = lookup(`${record.uri}/${id}`);
    if (!child) throw new ResourceError('CONFLICT', `Child ${record.uri}/${id} is missing from the tree`);
    return child;
  });
}

/** elementDict + each children key holding the nested views of the children, recursively. */
export function nested(lookup: RecordLookup, record: ElementRecord): JsonObject {
  const view = elementDict(record);
  for (const key of Object.keys(record.children)) {
    view[key] = childRecords(lookup, record, key).map((child) => nested(lookup, child));
  }
  return view;
}

/** The persisted form with the whole subtree inline (empty relationships and empty children lists omitted). */
export function dumped(lookup: RecordLookup, record: ElementRecord): DumpedElement {
  const out: DumpedElement = { id: record.id };
  if (Object.keys(record.relationships).length > 0) out.relationships = cloneJson(record.relationships);
  Object.assign(out, props(record));
  for (const key of Object.keys(record.children)) {
    const children = childRecords(lookup, record, key);
    if (children.length > 0)
      out[key] = children.map((child) => dumped(lookup, child)) as unknown as JsonValue;
  }
  return out;
}

/** The canonical text of elementDict (sorted keys): what the embedder receives. */
export function embeddingText(record: ElementRecord): string {
  return canonicalJson(elementDict(record));
}

/** sha256 (hex) of the canonical JSON of elementDict: re-embed only when it changes. */
export function contentHash(record: ElementRecord): string {
  return createHash('sha256').update(embeddingText(record)).digest('hex');
}

/** The aspect as the model sees it: name, description, children_keys and the metadata spread at top level. */
export function aspectView(aspect: Aspect): JsonObject {
  return {
    ...cloneJson(aspect.metadata),
    name: aspect.name,
    ...(aspect.description !== undefined ? { description: aspect.description } : {}),
    children_keys: [...aspect.childrenKeys],
  };
}

// ---- dumped -> records ------------------------------------------------------------------------------------------

/**
 * Builds the flat records (pre-order: each element before its children) of dumped elements placed under
 * `parentUri` (an aspect URI for root elements). Throws VALIDATION_FAILED on a missing/invalid id, a reserved
 * property, a children key that is not a list of objects, or a bad relationships value; INVALID_URI on a bad id.
 * A `uri`/`aspect` key is accepted only when it equals the computed value (then dropped).
 */
export function recordsFromDumped(
  aspect: Aspect,
  parentUri: string,
  items: readonly unknown[],
): ElementRecord[] {
  const out: ElementRecord[] = [];
  const isRoot = parentUri === `/${aspect.name}`;
  for (const item of items) build(aspect, isRoot ? null : parentUri, parentUri, item, out);
  return out;
}

function build(
  aspect: Aspect,
  parent: string | null,
  base: string,
  item: unknown,
  out: ElementRecord[],
): void {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw new ResourceError('VALIDATION_FAILED', `Every element under ${base} must be an object with an id`, {
      parentUri: base,
    });
  }
  const raw = item as Record<string, unknown>;
  const id = typeof raw['id'] === 'string' ? raw['id'].trim() : undefined;
  if (!id) {
    throw new ResourceError('VALIDATION_FAILED', `An element under ${base} has no id`, { parentUri: base });
  }
  const uri = childUri(base, id);
  const relationships = Relationships.safeParse(raw['relationships'] ?? {});
  if (!relationships.success) {
    throw new ResourceError(
      'VALIDATION_FAILED',
      `Element ${uri}: relationships must map target URIs to lists of strings`,
      {
        uri,
      },
    );
  }
  const record: ElementRecord = {
    id,
    uri,
    aspect: aspect.name,
    parentUri: parent,
    relationships: relationships.data,
    properties: {},
    children: Object.fromEntries(aspect.childrenKeys.map((key) => [key, [] as string[]])),
  };
  out.push(record);
  const childKeys = new Set(aspect.childrenKeys);
  for (const [key, value] of Object.entries(raw)) {
    // null means "no value" everywhere (a property write with null deletes), so it is never stored: the undo of a
    // later write to that property then deletes it again, as it should.
    if (key === 'id' || key === 'relationships' || value === undefined || value === null) continue;
    if ((key === 'uri' && value === uri) || (key === 'aspect' && value === aspect.name)) continue;
    if (childKeys.has(key)) {
      if (!Array.isArray(value)) {
        throw new ResourceError(
          'VALIDATION_FAILED',
          `Element ${uri}: children key ${key} must hold a list of elements`,
          {
            uri,
            childrenKey: key,
          },
        );
      }
      for (const child of value) {
        const start = out.length;
        build(aspect, uri, uri, child, out);
        (record.children[key] as string[]).push((out[start] as ElementRecord).id);
      }
      continue;
    }
    if (RESERVED_PROPERTY_NAMES.includes(key) || key.length === 0) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `Element ${uri}: property name ${JSON.stringify(key)} is reserved`,
        {
          uri,
          keys: [key],
        },
      );
    }
    const parsed = JsonValue.safeParse(value);
    if (!parsed.success) {
      throw new ResourceError('VALIDATION_FAILED', `Element ${uri}: property ${key} is not JSON`, {
        uri,
        keys: [key],
      });
    }
    record.properties[key] = parsed.data;
  }
}
