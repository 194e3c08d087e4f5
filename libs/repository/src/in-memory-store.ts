import { InMemoryMemoryStore } from './memory/in-memory-memory-store';
import type { MemoryUpsert } from './memory/memory-store.port';
import type { AspectRecord, ElementRecord } from './model';
import { cosine } from './scoring';
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
} from './text';

interface Row {
  record: ElementRecord;
  hash: string;
  text: string;
  vector: number[];
}

/**
 * The reference ResourceStore: everything in maps, copies in and out. Search: BM25 over the analysed text and over
 * the names (`Bm25Index`), cosine similarity over every vector, fused by `fuse` (weighted RRF + name matches).
 * The shared contract suite checks the LanceDB and Qdrant stores against this behaviour.
 */
export class InMemoryResourceStore implements ResourceStore {
  private readonly rows = new Map<string, Row>();
  private readonly keyword = new Bm25Index();
  private readonly names = new Bm25Index();
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
    for (const uri of uris) {
      this.rows.delete(uri);
      this.keyword.delete(uri);
      this.names.delete(uri);
    }
  }

  async saveAspects(aspects: readonly AspectRecord[]): Promise<void> {
    this.assertOpen();
    this.aspects = structuredClone([...aspects]);
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
    const vector = [...this.rows.values()]
      .filter((row) => accept(row.record.uri) && row.vector.some((x) => x !== 0))
      .map((row) => ({ uri: row.record.uri, score: cosine(request.vector, row.vector) }))
      .sort((a, b) => b.score - a.score || (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
      .slice(0, limit)
      .map((hit) => hit.uri);
    const id = request.text.trim().toLowerCase();
    const exact = [...this.rows.values()]
      .filter((row) => accept(row.record.uri) && row.record.id.toLowerCase() === id)
      .map((row) => row.record.uri);
    return {
      keyword: this.keyword.search(terms.text, limit, accept),
      vector,
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
    const terms = documentTerms(row.record, row.text);
    this.rows.set(row.record.uri, row);
    this.keyword.set(row.record.uri, terms.text);
    this.names.set(row.record.uri, terms.names);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('InMemoryResourceStore is closed');
  }
}
