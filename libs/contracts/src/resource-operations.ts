import { z } from 'zod';
import { AspectName, JsonObject, JsonValue, ResourceUri, Text } from './common';
import { ChildrenKey, ElementInput } from './resource-model';

/**
 * Write operations on the repository. Every operation has an exact inverse that the service returns (the undo), and
 * inverses are themselves operations, so undo/redo is "apply the inverse".
 */

/** Largest number of operations in one apply (one undo group). */
export const MAX_OPERATIONS_PER_APPLY = 100;

/** Merges `data` into an element's properties; a `null` value deletes the property. Reserved names are rejected. */
export const PropertyOperation = z.strictObject({
  type: z.literal('property'),
  uri: ResourceUri,
  data: z.record(z.string().min(1).max(256), JsonValue),
});
export type PropertyOperation = z.infer<typeof PropertyOperation>;

/** Where a splice applies: an aspect's root list (`uri` = `/{aspect}`, `childrenKey` null) or an element's children. */
export const SpliceLocation = z.strictObject({
  uri: ResourceUri,
  childrenKey: ChildrenKey.nullable(),
});
export type SpliceLocation = z.infer<typeof SpliceLocation>;

/**
 * Replaces the items in `[start, end)` of the list with `data` (`end` = `start` inserts, empty `data` deletes). A
 * splice replaces whole elements: reordering by splice would drop the subtrees not re-sent.
 */
export const SpliceOperation = z
  .strictObject({
    type: z.literal('splice'),
    location: SpliceLocation,
    start: z.number().int().nonnegative(),
    end: z.number().int().nonnegative(),
    data: z.array(ElementInput),
  })
  .refine((op) => op.end >= op.start, { path: ['end'], message: 'end must be >= start' });
export type SpliceOperation = z.infer<typeof SpliceOperation>;

/** Creates an aspect. Its inverse is `aspect.remove`. */
export const AspectCreateOperation = z.strictObject({
  type: z.literal('aspect.create'),
  name: AspectName,
  description: Text.nullable().optional(),
  childrenKeys: z.array(ChildrenKey),
  metadata: JsonObject,
  /** Elements to restore with the aspect (set in the inverse of `aspect.remove`, so undo brings the data back). */
  elements: z.array(ElementInput).optional(),
});
export type AspectCreateOperation = z.infer<typeof AspectCreateOperation>;

/** Removes an aspect and all its elements. Its inverse is `aspect.create` with the removed elements. */
export const AspectRemoveOperation = z.strictObject({
  type: z.literal('aspect.remove'),
  name: AspectName,
});
export type AspectRemoveOperation = z.infer<typeof AspectRemoveOperation>;

/** Replaces the relationship list from `source` (an element) to `target`; an empty list removes it. One-directional. */
export const RelationshipOperation = z.strictObject({
  type: z.literal('relationship'),
  source: ResourceUri,
  target: ResourceUri,
  relations: z.array(z.string().max(10_000)),
});
export type RelationshipOperation = z.infer<typeof RelationshipOperation>;

export const ResourceOperation = z.discriminatedUnion('type', [
  PropertyOperation,
  SpliceOperation,
  AspectCreateOperation,
  AspectRemoveOperation,
  RelationshipOperation,
]);
export type ResourceOperation = z.infer<typeof ResourceOperation>;
export type ResourceOperationType = ResourceOperation['type'];
