import { z } from 'zod';
import { AspectName, ElementId, JsonObject, ResourceSegment, ResourceUri, Text } from './common';

/**
 * The resource model on the wire: aspects (categories with free metadata), elements (free properties, relationships to
 * other URIs, children lists under the aspect's children keys) and the views the agent and the tools read.
 */

/** Names an element property can never have (they are structural fields). */
export const RESERVED_PROPERTY_NAMES = [
  'id',
  'uri',
  'relationships',
  'aspect',
  'children_keys',
  'embedding',
  'hash',
];

/** A children key: the name of the property that holds child elements (never `relationships`). */
export const ChildrenKey = ResourceSegment.refine(
  (k) => k !== 'relationships',
  '"relationships" is reserved',
);
export type ChildrenKey = z.infer<typeof ChildrenKey>;

/** Relationships stored on the source element: target URI → free-text descriptions. One-directional. */
export const Relationships = z.record(ResourceUri, z.array(z.string().max(10_000)));
export type Relationships = z.infer<typeof Relationships>;

/** An aspect: a named category with free metadata (the LLM-written "schema" lives in `metadata`). */
export const Aspect = z.strictObject({
  name: AspectName,
  description: Text.nullable().optional(),
  /** Where the aspect's data lives, for stores that keep one file per aspect. */
  path: z.string().max(1_024).optional(),
  childrenKeys: z.array(ChildrenKey),
  metadata: JsonObject,
});
export type Aspect = z.infer<typeof Aspect>;

export type ResourceElement = {
  id: string;
  uri: string;
  aspect: string;
  relationships: Relationships;
  properties: JsonObject;
  children: Record<string, ResourceElement[]>;
};

/** A full element with its subtree. Its `uri` is `{parent uri}/{id}`; the children key is not part of it. */
export const ResourceElement: z.ZodType<ResourceElement> = z.strictObject({
  id: ElementId,
  uri: ResourceUri,
  aspect: AspectName,
  relationships: Relationships,
  properties: JsonObject,
  children: z.record(
    ChildrenKey,
    z.lazy(() => z.array(ResourceElement)),
  ),
});

export type ElementInput = {
  id: string;
  properties?: JsonObject;
  relationships?: Relationships;
  children?: Record<string, ElementInput[]>;
};

/**
 * An element to insert (splice data, inverse splices, imports): the service derives `uri` and `aspect` from where it
 * lands. Inverse splices carry removed elements in this form, subtree and relationships included, so undo is exact.
 */
export const ElementInput: z.ZodType<ElementInput> = z.strictObject({
  id: ElementId,
  properties: JsonObject.optional(),
  relationships: Relationships.optional(),
  children: z
    .record(
      ChildrenKey,
      z.lazy(() => z.array(ElementInput)),
    )
    .optional(),
});

/** Child ids by children key, in order. */
export const ChildIds = z.record(ChildrenKey, z.array(ElementId));
export type ChildIds = z.infer<typeof ChildIds>;

/** An element without its subtree (what search hits and tool outputs show). */
export const ElementContext = z.strictObject({
  uri: ResourceUri,
  id: ElementId,
  aspect: AspectName,
  properties: JsonObject,
  relationships: Relationships,
  childIds: ChildIds,
});
export type ElementContext = z.infer<typeof ElementContext>;
