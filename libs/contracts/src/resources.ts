import { z } from 'zod';
import {
  AspectName,
  ElementId,
  GoalId,
  IdempotencyKey,
  JsonObject,
  Label,
  ResourceUri,
  SchemaVersion,
  Text,
  Timestamp,
} from './common';
import {
  Aspect,
  ChildIds,
  ChildrenKey,
  ElementContext,
  ElementInput,
  Relationships,
  ResourceElement,
} from './resource-model';
import { MAX_OPERATIONS_PER_APPLY, ResourceOperation } from './resource-operations';
import { BacklogPriority } from './runtime';

/**
 * Request and reply bodies of the resource service (`novelrag.resources.*`). Every reply travels inside
 * `Reply<T>` (`replyOf`). Requests are strict: an unknown key is a caller bug.
 */

export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 5;

/** `resources.find`: `/` → all aspects; `/{aspect}` → the aspect; deeper → the element (NOT_FOUND otherwise). */
export const FindRequest = z.strictObject({ uri: ResourceUri });
export type FindRequest = z.infer<typeof FindRequest>;

export const FindReply = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('root'), uri: z.literal('/'), aspects: z.array(Aspect) }),
  z.strictObject({
    kind: z.literal('aspect'),
    uri: ResourceUri,
    aspect: Aspect,
    rootIds: z.array(ElementId),
  }),
  z.strictObject({ kind: z.literal('element'), uri: ResourceUri, element: ResourceElement }),
]);
export type FindReply = z.infer<typeof FindReply>;

/** `resources.search`: hybrid (keyword + vector) search; exact names (余归) rank first. */
export const SearchRequest = z.strictObject({
  query: z.string().trim().min(1).max(2_000),
  aspect: AspectName.optional(),
  /** Default DEFAULT_SEARCH_LIMIT. */
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional(),
});
export type SearchRequest = z.infer<typeof SearchRequest>;

export const SearchHit = z.strictObject({
  uri: ResourceUri,
  /** Higher is better; comparable within one reply only. */
  score: z.number(),
  element: ElementContext,
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchReply = z.strictObject({ hits: z.array(SearchHit) });
export type SearchReply = z.infer<typeof SearchReply>;

/** One workspace segment: a URI and the properties hidden from it. */
export const SegmentSpec = z.strictObject({
  uri: ResourceUri,
  excludedProperties: z.array(z.string().max(256)),
});
export type SegmentSpec = z.infer<typeof SegmentSpec>;

/**
 * `resources.segments`: the workspace rendered by the store, so hidden properties never leave it. `excludedUris` hide
 * elements from child lists and relationships of every segment.
 */
export const SegmentsRequest = z.strictObject({
  segments: z.array(SegmentSpec).min(1).max(200),
  excludedUris: z.array(ResourceUri).max(1_000),
});
export type SegmentsRequest = z.infer<typeof SegmentsRequest>;

/** What one segment shows: root → aspect names; aspect → its metadata and root ids; element → visible data. */
export const SegmentData = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('root'), uri: z.literal('/'), aspects: z.array(AspectName) }),
  z.strictObject({
    kind: z.literal('aspect'),
    uri: ResourceUri,
    name: AspectName,
    /** name/description/childrenKeys and the metadata keys, minus excluded properties. */
    metadata: JsonObject,
    excludedProperties: z.array(z.string()),
    rootIds: z.array(ElementId),
  }),
  z.strictObject({
    kind: z.literal('element'),
    uri: ResourceUri,
    id: ElementId,
    aspect: AspectName,
    properties: JsonObject,
    excludedProperties: z.array(z.string()),
    childIds: ChildIds,
    relationships: Relationships,
  }),
]);
export type SegmentData = z.infer<typeof SegmentData>;

/** Segments in request order; URIs that do not resolve are listed in `missing` instead. */
export const SegmentsReply = z.strictObject({
  segments: z.array(SegmentData),
  missing: z.array(ResourceUri),
});
export type SegmentsReply = z.infer<typeof SegmentsReply>;

/** Why a write happened (for traces, recency weighting and the changed event). */
export const WriteOrigin = z.strictObject({
  goalId: GoalId.optional(),
  tool: Label.optional(),
  step: z.number().int().nonnegative().optional(),
});
export type WriteOrigin = z.infer<typeof WriteOrigin>;

/**
 * `resources.apply`: applies the operations in order, atomically (all or none), as one undo group. A repeated
 * `idempotencyKey` returns the first reply without applying again.
 */
export const ApplyRequest = z.strictObject({
  operations: z.array(ResourceOperation).min(1).max(MAX_OPERATIONS_PER_APPLY),
  groupId: Label.optional(),
  idempotencyKey: IdempotencyKey.optional(),
  origin: WriteOrigin.optional(),
});
export type ApplyRequest = z.infer<typeof ApplyRequest>;

/** The inverse operations, in the order that undoes the batch (last operation first), and every URI touched. */
export const ApplyReply = z.strictObject({
  undo: z.array(ResourceOperation),
  changedUris: z.array(ResourceUri),
  /**
   * Set when the request's `idempotencyKey` had already been applied: nothing was applied now, and this is the
   * first application's reply, with the operations it applied (`applied`), which may differ from the ones just sent
   * (a retried tool call regenerates its content). Replies recorded before `applied` existed lack it.
   */
  replayed: z.literal(true).optional(),
  applied: z.array(ResourceOperation).optional(),
});
export type ApplyReply = z.infer<typeof ApplyReply>;

/** `resources.relationships`: sets the source → target list (source must be an element); returns the old list. */
export const RelationshipsUpdate = z.strictObject({
  source: ResourceUri,
  target: ResourceUri,
  relations: z.array(z.string().max(10_000)),
  groupId: Label.optional(),
  origin: WriteOrigin.optional(),
});
export type RelationshipsUpdate = z.infer<typeof RelationshipsUpdate>;

export const RelationshipsReply = z.strictObject({ previous: z.array(z.string()) });
export type RelationshipsReply = z.infer<typeof RelationshipsReply>;

export const AspectsListRequest = z.strictObject({});
export type AspectsListRequest = z.infer<typeof AspectsListRequest>;
export const AspectsListReply = z.strictObject({ aspects: z.array(Aspect) });
export type AspectsListReply = z.infer<typeof AspectsListReply>;

/** `resources.aspects.create` (ALREADY_EXISTS when the name is taken). */
export const AspectCreateRequest = z.strictObject({
  name: AspectName,
  description: Text.nullable().optional(),
  childrenKeys: z.array(ChildrenKey),
  metadata: JsonObject,
  origin: WriteOrigin.optional(),
});
export type AspectCreateRequest = z.infer<typeof AspectCreateRequest>;
export const AspectCreateReply = z.strictObject({ aspect: Aspect });
export type AspectCreateReply = z.infer<typeof AspectCreateReply>;

/** `resources.aspects.remove`: removes the aspect with its elements (undoable, data included). */
export const AspectRemoveRequest = z.strictObject({ name: AspectName, origin: WriteOrigin.optional() });
export type AspectRemoveRequest = z.infer<typeof AspectRemoveRequest>;
export const AspectRemoveReply = z.strictObject({
  aspect: Aspect,
  removedElements: z.number().int().nonnegative(),
});
export type AspectRemoveReply = z.infer<typeof AspectRemoveReply>;

/** `resources.undo` / `resources.redo`: one group per call. */
export const UndoRedoRequest = z.strictObject({ origin: WriteOrigin.optional() });
export type UndoRedoRequest = z.infer<typeof UndoRedoRequest>;

export const UndoRedoReply = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('applied'),
    action: z.enum(['undo', 'redo']),
    count: z.number().int().min(1),
    descriptions: z.array(z.string()),
    changedUris: z.array(ResourceUri),
  }),
  /** Nothing to undo (or redo). */
  z.strictObject({ status: z.literal('empty'), action: z.enum(['undo', 'redo']) }),
]);
export type UndoRedoReply = z.infer<typeof UndoRedoReply>;

/** `resources.operations`: recent history, newest first. */
export const OperationsListRequest = z.strictObject({ limit: z.number().int().min(1).max(100).optional() });
export type OperationsListRequest = z.infer<typeof OperationsListRequest>;

export const OperationHistoryEntry = z.strictObject({
  stack: z.enum(['undo', 'redo']),
  description: z.string(),
  group: z.string().nullable(),
  /** The inverse operation that undo (or redo) would apply. */
  operation: ResourceOperation,
  at: Timestamp,
});
export type OperationHistoryEntry = z.infer<typeof OperationHistoryEntry>;

export const OperationsListReply = z.strictObject({ entries: z.array(OperationHistoryEntry) });
export type OperationsListReply = z.infer<typeof OperationsListReply>;

/** A stored follow-up item (what the autonomous backlog decider reads). */
export const BacklogEntry = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
  content: JsonObject,
  priority: BacklogPriority,
  createdAt: Timestamp,
});
export type BacklogEntry = z.infer<typeof BacklogEntry>;

export const BacklogAddRequest = z.strictObject({
  content: JsonObject,
  /** Default DEFAULT_BACKLOG_PRIORITY. Identical content is merged, keeping the higher priority. */
  priority: BacklogPriority.optional(),
  origin: WriteOrigin.optional(),
});
export type BacklogAddRequest = z.infer<typeof BacklogAddRequest>;
export const BacklogAddReply = z.strictObject({ entry: BacklogEntry });
export type BacklogAddReply = z.infer<typeof BacklogAddReply>;

/** Highest priority first, then oldest first. */
export const BacklogListRequest = z.strictObject({ limit: z.number().int().min(1).max(1_000).optional() });
export type BacklogListRequest = z.infer<typeof BacklogListRequest>;
export const BacklogListReply = z.strictObject({ entries: z.array(BacklogEntry) });
export type BacklogListReply = z.infer<typeof BacklogListReply>;

export const BacklogRemoveRequest = z.strictObject({ ids: z.array(BacklogEntry.shape.id).min(1).max(100) });
export type BacklogRemoveRequest = z.infer<typeof BacklogRemoveRequest>;
/** The entries that existed and were removed. */
export const BacklogRemoveReply = z.strictObject({ removed: z.array(BacklogEntry) });
export type BacklogRemoveReply = z.infer<typeof BacklogRemoveReply>;

/** One aspect with all its elements (export/import and backups). */
export const AspectDump = z.strictObject({ aspect: Aspect, elements: z.array(ElementInput) });
export type AspectDump = z.infer<typeof AspectDump>;

/** `resources.export`: all aspects, or the named ones. */
export const ExportRequest = z.strictObject({ aspects: z.array(AspectName).optional() });
export type ExportRequest = z.infer<typeof ExportRequest>;
export const ExportReply = z.strictObject({ schemaVersion: SchemaVersion, aspects: z.array(AspectDump) });
export type ExportReply = z.infer<typeof ExportReply>;

/** `resources.import`: `merge` fails on existing aspects (ALREADY_EXISTS); `replace` overwrites them. */
export const ImportRequest = z.strictObject({
  schemaVersion: SchemaVersion,
  aspects: z.array(AspectDump).min(1),
  mode: z.enum(['merge', 'replace']),
});
export type ImportRequest = z.infer<typeof ImportRequest>;
export const ImportReply = z.strictObject({
  aspects: z.number().int().nonnegative(),
  elements: z.number().int().nonnegative(),
});
export type ImportReply = z.infer<typeof ImportReply>;

export const ResourceChangeCause = z.enum([
  'apply',
  'relationships',
  'aspect.create',
  'aspect.remove',
  'undo',
  'redo',
  'import',
]);
export type ResourceChangeCause = z.infer<typeof ResourceChangeCause>;

/** Event on `novelrag.resources.changed` after every committed write. */
export const ResourcesChanged = z.object({
  schemaVersion: SchemaVersion,
  uris: z.array(ResourceUri),
  cause: ResourceChangeCause,
  origin: WriteOrigin.optional(),
  at: Timestamp,
});
export type ResourcesChanged = z.infer<typeof ResourcesChanged>;
