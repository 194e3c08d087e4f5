// The resource-service domain: pure TypeScript (zod + node:*), no Nest, no store SDKs.
export { ResourceError, isResourceError } from './errors';
export type { ResourceErrorCode } from './errors';
export { JsonValue, JsonObject, canonicalJson } from './json';
export {
  ROOT_URI,
  MAX_ID_LENGTH,
  parseUri,
  isValidUri,
  idProblem,
  assertValidId,
  parentUri,
  childUri,
  aspectOf,
  lastSegment,
  isAncestor,
} from './uri';
export type { ParsedUri } from './uri';
export {
  RESERVED_PROPERTY_NAMES,
  Aspect,
  AspectRecord,
  Relationships,
  ElementRecord,
  DumpedElement,
  reservedKeys,
  validateAspect,
  props,
  elementDict,
  contextView,
  nested,
  dumped,
  embeddingText,
  contentHash,
  aspectView,
  recordsFromDumped,
} from './model';
export type { RecordLookup } from './model';
export {
  PropertyOperation,
  SpliceLocation,
  ResourceOperation,
  Operation,
  AspectConfig,
  ReversibleAction,
  parseOperation,
  parseAction,
  parseAspectConfig,
  spliceBounds,
  describeAction,
  aspectFromConfig,
  configFromAspect,
} from './operations';
export { ResourceTree } from './tree';
export type { TreeChanges, ApplyResult, ExecuteResult, FindResult, TreeSnapshot } from './tree-types';
export { UndoLog, UndoEntry, UndoLogJson } from './undo';
export type { UndoRedoResult, ActionRunner, UndoLogOptions } from './undo';
export {
  AppliedKeys,
  AppliedKey,
  AppliedKeysJson,
  DEFAULT_APPLIED_KEYS_MAX,
  DEFAULT_APPLIED_KEYS_MAX_AGE_MS,
  DEFAULT_APPLIED_KEYS_MAX_BYTES,
} from './applied-keys';
export type { AppliedKeysOptions } from './applied-keys';
export { HistoryJson, WriteJournal, parseHistory, historyJson } from './history';
export {
  AspectsDelta,
  RootsDelta,
  applyAspectsDelta,
  assertAspectsDeltaFits,
  wholeAspects,
} from './aspects-delta';
export type { RootsSpan } from './aspects-delta';
export type { History } from './history';
export { Backlog, BacklogEntry, BacklogJson, DEFAULT_BACKLOG_PRIORITY } from './backlog';
export type { BacklogOptions } from './backlog';
export type {
  ResourceStore,
  Embedder,
  StoredRecord,
  StoreState,
  UpsertItem,
  SearchRequest,
  SearchHit,
  SegmentRequest,
  SegmentsRequest,
  SegmentData,
  SegmentsResult,
} from './store.port';
export { buildSegments } from './segments';
export type { SegmentSource } from './segments';
export { cosine } from './scoring';
export * from './text';
export { InMemoryResourceStore } from './in-memory-store';
export * from './memory';
export { LocalEmbedder } from './local-embedder';
export { AsyncMutex } from './mutex';
export { ResourceRepository } from './repository';
export type {
  ChangeCause,
  ChangeEvent,
  WriteOptions,
  ApplyOutcome,
  UndoRedoOutcome,
  ExecuteOutcome,
  SearchResult,
  RepositoryOptions,
  Idempotency,
  OnceResult,
} from './repository-types';
