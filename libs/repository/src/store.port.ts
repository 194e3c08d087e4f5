import type { AspectsDelta } from './aspects-delta';
import type { JsonObject } from './json';
import type { MemoryStore } from './memory/memory-store.port';
import type { AspectRecord, ElementRecord, Relationships } from './model';

/** A persisted element with the content hash its stored vector was computed from. */
export interface StoredRecord {
  readonly record: ElementRecord;
  readonly hash: string;
}

/**
 * Everything the repository needs at start. `undo` (the history document: undo log, applied idempotency keys, the
 * newest write's journal, see `HistoryJson`) and `backlog` are the JSON documents last saved, null when never saved.
 */
export interface StoreState {
  readonly aspects: AspectRecord[];
  readonly records: StoredRecord[];
  readonly undo: unknown;
  readonly backlog: unknown;
}

export interface UpsertItem {
  readonly record: ElementRecord;
  /** `searchHash(text)`. */
  readonly hash: string;
  /**
   * `searchText(record, tree)`: readable text (names, property values, relationships with their targets' names,
   * children's and parent's names), the text behind the vector. Stores index `documentTerms(record, text)`.
   */
  readonly text: string;
  /**
   * The embedding of `text`, or null when the search hash is unchanged: the store then keeps the stored vector
   * and only rewrites the record's other fields.
   */
  readonly vector: number[] | null;
}

export interface SearchRequest {
  /** The user's query text (keyword side of the hybrid search). */
  readonly text: string;
  /** The query's embedding (vector side). */
  readonly vector: number[];
  /** Only elements of this aspect. */
  readonly aspect?: string;
  readonly limit: number;
}

export interface SearchHit {
  readonly uri: string;
  /** Higher is better; comparable only within one result list. */
  readonly score: number;
}

/** One segment of the agent's workspace: a URI and the properties the agent chose to hide. */
export interface SegmentRequest {
  readonly uri: string;
  readonly excludedProperties?: readonly string[];
}

export interface SegmentsRequest {
  /** In the order the segments should come back. */
  readonly segments: readonly SegmentRequest[];
  /** URIs hidden from the workspace: not returned as segments, removed from child id lists and relationships. */
  readonly excludedUris?: readonly string[];
}

/**
 * What a segment shows (original `SegmentData`):
 * - `/`: no properties; `childIds = {aspects: [aspect names not excluded]}`; no relationships.
 * - `/{aspect}`: properties = the aspect view (name, description, children_keys, metadata) minus excluded
 *   properties; `childIds = {top_child_resources: [root ids not excluded]}`; no relationships.
 * - element: properties = its free properties minus excluded; `childIds = {childKey: [ids not excluded]}` (every
 *   children key, possibly empty); relationships minus excluded targets.
 */
export interface SegmentData {
  readonly uri: string;
  readonly kind: 'root' | 'aspect' | 'element';
  readonly properties: JsonObject;
  /** The requested exclusions, sorted. */
  readonly excludedProperties: string[];
  readonly childIds: Record<string, string[]>;
  readonly relationships: Relationships;
}

export interface SegmentsResult {
  /** In request order, excluded URIs and missing URIs left out. */
  readonly segments: SegmentData[];
  /** Requested URIs that do not resolve (including malformed ones), in request order. */
  readonly missing: string[];
}

/**
 * Where the repository persists. Implementations: in-memory (reference), LanceDB (embedded), Qdrant (production);
 * all pass one contract suite. Every method rejects with the store's own error on failure; the repository wraps
 * it as UNAVAILABLE. Writes are idempotent (upsert by uri, delete of an absent uri is a no-op).
 */
export interface ResourceStore {
  /** The whole persisted state (empty state for a new store). */
  load(): Promise<StoreState>;
  /** Inserts or replaces records by uri (see `UpsertItem.vector` for the keep-the-vector case). */
  upsert(items: readonly UpsertItem[]): Promise<void>;
  /** Removes records by uri. */
  delete(uris: readonly string[]): Promise<void>;
  /**
   * Changes the aspect list (order, aspects, root lists) by `delta`, whole or not at all. A delta is idempotent
   * (see `AspectsDelta`): the repository may repeat one after a failure. The cost should follow the size of the
   * delta, not of the list (a write appends a few root ids to lists that may hold a million). Rejects (changing
   * nothing) with a CONFLICT ResourceError when the delta does not fit the stored list (`assertAspectsDeltaFits`).
   */
  updateAspects(delta: AspectsDelta): Promise<void>;
  /**
   * Replaces the history document. The repository saves it before a write's records, as that write's commit
   * point, so it must be durable when this resolves and replaced whole or not at all (a crash leaves the old or
   * the new document, never a mix).
   */
  saveUndo(json: unknown): Promise<void>;
  saveBacklog(json: unknown): Promise<void>;
  /**
   * Hybrid search over elements: BM25 over the analysed text, BM25 over the names and vector similarity, each a
   * candidate list of `candidateLimit(limit)`, fused by `fuse` (weighted RRF; an exact name or id match first, then
   * elements whose name the query mentions). The query gets the same analysis as the index. Best first, at most
   * `limit`.
   */
  search(request: SearchRequest): Promise<SearchHit[]>;
  /** Property-filtered views of the requested URIs (shape documented on `SegmentData`). */
  segments(request: SegmentsRequest): Promise<SegmentsResult>;
  /** Thread memories, kept in the same store (see `MemoryStore`); unusable once the store is closed. */
  readonly memory: MemoryStore;
  close(): Promise<void>;
}

/** Turns texts into vectors of a fixed dimension. Rejects on failure (network, quota). */
export interface Embedder {
  readonly dimensions: number;
  /** Which model makes the vectors: part of the search hash, so a model change re-embeds every element. */
  readonly id?: string;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}
