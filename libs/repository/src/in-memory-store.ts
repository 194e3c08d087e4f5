import { applyAspectsDelta, type AspectsDelta } from './aspects-delta';
import { InMemoryMemoryStore } from './memory/in-memory-memory-store';
import type { MemoryUpsert } from './memory/memory-store.port';
import type { AspectRecord, ElementRecord } from './model';
import { buildSegments } from './segments';
import type {
  ResourceStore,
  SearchHit,
  SearchRequest,
  SegmentsRequest,
  SegmentsResult,
  StoreState,
  UpsertItem,
} from './store.port';
import {
  Bm25Index,
  candidateLimit,
  documentTerms,
  fuse,
  type FusionWeights,
  type HybridSides,
  queryTerms,
  SearchEntries,
  VectorIndex,
} from './text';

interface Row {
  record: ElementRecord;
  hash: string;
  text: string;
  vector: number[];
}

/**
 * The reference ResourceStore: everything in maps, copies in and out. Search: BM25 over the analysed text and over
 * the names (`Bm25Index`, inverted indexes), cosine similarity over a normalised vector matrix grouped by aspect
 * (`VectorIndex`) and a lowercased-id map, all maintained on write and delete, fused by `fuse` (weighted RRF + name
 * matches).
 * The shared contract suite checks the LanceDB and Qdrant stores against this behaviour.
 */
export class InMemoryResourceStore implements ResourceStore {
  private readonly rows = new Map<string, Row>();
  private readonly keyword = new Bm25Index();
  private readonly names = new Bm25Index();
  private readonly vectors = new VectorIndex();
  /** Lowercased element id → uris (the exact-id side). */
  private readonly byId = new Map<string, Set<string>>();
  /** Fusion weights other than the tuned ones (the evaluation's tuning uses it). */
  fusionWeights: FusionWeights | undefined;
  private aspects: AspectRecord[] = [];
  private undo: unknown = null;
  private backlog: unknown = null;
  private closed = false;
  readonly memory: InMemoryMemoryStore;

  /**
   * Starts from a previously saved state (e.g. `exportState()`/`exportVectors()`/`memory.exportMemories()` of
   * another store).
   */
  constructor(initial?: {
    state: StoreState;
    vectors?: Record<string, number[]>;
    memories?: readonly MemoryUpsert[];
  }) {
    this.memory = new InMemoryMemoryStore(() => this.assertOpen(), initial?.memories);
    if (initial) {
      this.aspects = structuredClone(initial.state.aspects);
      this.undo = structuredClone(initial.state.undo);
      this.backlog = structuredClone(initial.state.backlog);
      const records = new Map(initial.state.records.map(({ record }) => [record.uri, record]));
      const entries = new SearchEntries(records.values());
      for (const { record, hash } of initial.state.records) {
        this.setRow({
          record: structuredClone(record),
          hash,
          text: entries.entryOf(record, (uri) => records.get(uri)).text,
          vector: initial.vectors?.[record.uri] ?? [],
        });
      }
    }
  }

  async load(): Promise<StoreState> {
    this.assertOpen();
    return this.exportState();
  }

  /** A copy of the persisted state (same as `load`, synchronous, for tests). */
  exportState(): StoreState {
    return structuredClone({
      aspects: this.aspects,
      records: [...this.rows.values()].map(({ record, hash }) => ({ record, hash })),
      undo: this.undo,
      backlog: this.backlog,
    });
  }

  /** Every stored vector by uri (with `exportState`, enough to build an identical store). */
  exportVectors(): Record<string, number[]> {
    return Object.fromEntries([...this.rows].map(([uri, row]) => [uri, [...row.vector]]));
  }

  /** The stored vector of a uri (tests check hash-gated re-embedding with it). */
  vectorOf(uri: string): number[] | undefined {
    const row = this.rows.get(uri);
    return row ? [...row.vector] : undefined;
  }

  async upsert(items: readonly UpsertItem[]): Promise<void> {
    this.assertOpen();
    for (const item of items) {
      const previous = this.rows.get(item.record.uri);
      this.setRow({
        record: structuredClone(item.record),
        hash: item.hash,
        text: item.text,
        vector: item.vector ? [...item.vector] : (previous?.vector ?? []),
      });
    }
  }

  async delete(uris: readonly string[]): Promise<void> {
    this.assertOpen();
    for (const uri of uris) this.deleteRow(uri);
  }

  async updateAspects(delta: AspectsDelta): Promise<void> {
    this.assertOpen();
    this.aspects = applyAspectsDelta(this.aspects, structuredClone(delta), true);
  }

  async saveUndo(json: unknown): Promise<void> {
    this.assertOpen();
    this.undo = structuredClone(json);
  }

  async saveBacklog(json: unknown): Promise<void> {
    this.assertOpen();
    this.backlog = structuredClone(json);
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    this.assertOpen();
    const records = { get: (uri: string) => this.rows.get(uri)?.record };
    return fuse(request.text, this.rankSides(request), records, request.limit, this.fusionWeights);
  }

  /** The candidate lists `search` fuses (each at most `candidateLimit(limit)`), for the evaluation's tuning. */
  rankSides(request: SearchRequest): HybridSides {
    this.assertOpen();
    const limit = candidateLimit(request.limit);
    const accept = (uri: string): boolean =>
      request.aspect === undefined || this.rows.get(uri)?.record.aspect === request.aspect;
    const terms = queryTerms(request.text);
    const exact = [...(this.byId.get(request.text.trim().toLowerCase()) ?? [])].filter(accept).sort();
    return {
      keyword: this.keyword.search(terms.text, limit, accept),
      vector: this.vectors.search(request.vector, limit, request.aspect),
      names: this.names.search(terms.names, limit, accept),
      exact,
    };
  }

  async segments(request: SegmentsRequest): Promise<SegmentsResult> {
    this.assertOpen();
    return buildSegments({ aspects: this.aspects, record: (uri) => this.rows.get(uri)?.record }, request);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private setRow(row: Row): void {
    const { uri, id, aspect } = row.record;
    this.unindex(uri);
    const terms = documentTerms(row.record, row.text);
    this.rows.set(uri, row);
    this.keyword.set(uri, terms.text);
    this.names.set(uri, terms.names);
    this.vectors.set(uri, row.vector, aspect);
    const key = id.toLowerCase();
    this.byId.set(key, (this.byId.get(key) ?? new Set()).add(uri));
  }

  private deleteRow(uri: string): void {
    this.unindex(uri);
    this.rows.delete(uri);
  }

  /** Removes a row from every index (the row itself stays). */
  private unindex(uri: string): void {
    const row = this.rows.get(uri);
    if (!row) return;
    this.keyword.delete(uri);
    this.names.delete(uri);
    this.vectors.delete(uri);
    const key = row.record.id.toLowerCase();
    const uris = this.byId.get(key);
    uris?.delete(uri);
    if (uris?.size === 0) this.byId.delete(key);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('InMemoryResourceStore is closed');
  }
}
