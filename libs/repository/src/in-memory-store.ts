import type { AspectRecord, ElementRecord } from './model';
import { buildSegments } from './segments';
import { cosine, keywordScore } from './scoring';
import type {
  ResourceStore,
  SearchHit,
  SearchRequest,
  SegmentsRequest,
  SegmentsResult,
  StoreState,
  UpsertItem,
} from './store.port';

interface Row {
  record: ElementRecord;
  hash: string;
  text: string;
  vector: number[];
}

/**
 * The reference ResourceStore: everything in maps, copies in and out. Search = keyword score + cosine similarity.
 * The shared contract suite checks the LanceDB and Qdrant stores against this behaviour.
 */
export class InMemoryResourceStore implements ResourceStore {
  private readonly rows = new Map<string, Row>();
  private aspects: AspectRecord[] = [];
  private undo: unknown = null;
  private backlog: unknown = null;
  private closed = false;

  /** Starts from a previously saved state (e.g. `exportState()`/`exportVectors()` of another store). */
  constructor(initial?: { state: StoreState; vectors?: Record<string, number[]> }) {
    if (initial) {
      this.aspects = structuredClone(initial.state.aspects);
      this.undo = structuredClone(initial.state.undo);
      this.backlog = structuredClone(initial.state.backlog);
      for (const { record, hash } of initial.state.records) {
        this.rows.set(record.uri, {
          record: structuredClone(record),
          hash,
          text: '',
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
      this.rows.set(item.record.uri, {
        record: structuredClone(item.record),
        hash: item.hash,
        text: item.text,
        vector: item.vector ? [...item.vector] : (previous?.vector ?? []),
      });
    }
  }

  async delete(uris: readonly string[]): Promise<void> {
    this.assertOpen();
    for (const uri of uris) this.rows.delete(uri);
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
    const hits: SearchHit[] = [];
    for (const { record, vector } of this.rows.values()) {
      if (request.aspect !== undefined && record.aspect !== request.aspect) continue;
      hits.push({
        uri: record.uri,
        score: keywordScore(request.text, record) + cosine(request.vector, vector),
      });
    }
    return hits
      .sort((a, b) => b.score - a.score || a.uri.localeCompare(b.uri))
      .slice(0, Math.max(0, request.limit));
  }

  async segments(request: SegmentsRequest): Promise<SegmentsResult> {
    this.assertOpen();
    return buildSegments({ aspects: this.aspects, record: (uri) => this.rows.get(uri)?.record }, request);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('InMemoryResourceStore is closed');
  }
}
