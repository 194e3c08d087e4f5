import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import {
  applyAspectsDelta,
  type AspectRecord,
  AspectRecord as AspectRecordSchema,
  type AspectsDelta,
  buildSegments,
  candidateLimit,
  type ElementRecord,
  fuse,
  queryTerms,
  type ResourceStore,
  type SearchHit,
  type SearchRequest,
  type SegmentsRequest,
  type SegmentsResult,
  type StoreState,
  type UpsertItem,
} from '@novelrag/repository';
import {
  aspectFilter,
  DENSE,
  elementPayload,
  elementPoint,
  exactIdFilter,
  INDEXED_FIELDS,
  isElementUri,
  recordFromPayload,
  segmentSelector,
  SPARSE,
} from './qdrant-mapping';
import { QdrantMemoryCollection } from './qdrant-memory';
import { resizeCollection } from './qdrant-resize';
import { sparseVector } from './sparse';
import { pointIdOf, uuidV5, RESOURCE_URI_NAMESPACE } from './uuid5';

/** The client methods the store uses (a fake can implement just these). */
export type QdrantPort = Pick<
  QdrantClient,
  | 'collectionExists'
  | 'createCollection'
  | 'createPayloadIndex'
  | 'deleteCollection'
  | 'getCollection'
  | 'batchUpdate'
  | 'retrieve'
  | 'delete'
  | 'scroll'
  | 'query'
  | 'upsert'
>;

export interface QdrantStoreOptions {
  /** A client, or the URL (and API key) to create one. */
  readonly client?: QdrantPort;
  readonly url?: string;
  readonly apiKey?: string;
  /** Element collection; the meta documents live in `<collection>_meta`. Default `novelrag_elements`. */
  readonly collection?: string;
  /**
   * Size of the dense vectors (the embedder's). Collections of another size are resized when the store opens
   * (`resizeCollection`): elements lose their dense vector and hash, so the repository re-embeds every one; searched
   * memories are re-embedded here with `embed` (without it they keep only their sparse vector).
   */
  readonly dimensions: number;
  readonly embed?: (texts: readonly string[]) => Promise<number[][]>;
  /** Progress of a resize. */
  readonly log?: (message: string) => void;
}

export const DEFAULT_QDRANT_COLLECTION = 'novelrag_elements';
const META_KEYS = ['aspects', 'undo', 'backlog'] as const;
type MetaKey = (typeof META_KEYS)[number];
const metaId = (key: MetaKey): string => uuidV5(`meta:${key}`, RESOURCE_URI_NAMESPACE);
const PAGE = 256;

/**
 * The production ResourceStore on Qdrant. One point per element (id = UUIDv5(uri)) with the named dense vector
 * `dense` (cosine) and the sparse vector `bm25` (term frequencies; IDF applied by the server); payload = uri,
 * aspect, parent_uri, id, record (JSON object), child_ids, hash, text, with keyword indexes on the filter fields.
 *
 * Thread memories live in `<name>_memory` (`QdrantMemoryCollection`, `memory`).
 *
 * Meta documents (aspects, undo log, backlog) are points of a second collection `<name>_meta`, each with a
 * constant 1-dimensional dummy vector and the document as a JSON string payload (a string keeps the document
 * byte-exact; nobody filters on it). A dummy vector rather than a vector-less collection because every Qdrant
 * version accepts it.
 *
 * Search = three Query API calls, each with the aspect filter: dense, the sparse keyword terms and the sparse
 * (prefixed) name terms, plus an exact-id lookup, fused here by the shared `fuse` like every store. Every write waits (`wait: true`) so
 * it is visible to the next read. Methods reject with the client's errors.
 */
export class QdrantResourceStore implements ResourceStore {
  private closed = false;
  private memoryPart: QdrantMemoryCollection | undefined;

  private constructor(
    private readonly client: QdrantPort,
    private readonly collection: string,
    private readonly dimensions: number,
  ) {}

  /** Thread memories: the collection `<collection>_memory` (see `QdrantMemoryCollection`). */
  get memory(): QdrantMemoryCollection {
    if (!this.memoryPart) throw new Error('QdrantResourceStore is not open');
    return this.memoryPart;
  }

  /** Creates the collections and payload indexes when absent, resizing those of another dense size. */
  static async open(options: QdrantStoreOptions): Promise<QdrantResourceStore> {
    const { dimensions } = options;
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError('dimensions must be a positive integer');
    const client =
      options.client ??
      new QdrantClient({
        url: options.url,
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        checkCompatibility: false,
      });
    const collection = options.collection ?? DEFAULT_QDRANT_COLLECTION;
    const store = new QdrantResourceStore(client, collection, dimensions);
    await resizeCollection({
      client,
      collection,
      dimensions,
      create: (name) => store.createElements(name),
      rebuild: async (points) =>
        points.map((point) =>
          elementPoint({
            record: recordFromPayload(point.payload),
            hash: '',
            text: String(point.payload['text'] ?? ''),
            vector: null,
          }),
        ),
      log: options.log,
    });
    await store.ensureCollections();
    store.memoryPart = await QdrantMemoryCollection.open(
      client,
      `${collection}_memory`,
      dimensions,
      () => store.assertOpen(),
      { embed: options.embed, log: options.log },
    );
    return store;
  }

  /** Creates an element collection of the store's size with its payload indexes. */
  private async createElements(name: string): Promise<void> {
    await this.client.createCollection(name, {
      vectors: { [DENSE]: { size: this.dimensions, distance: 'Cosine' } },
      sparse_vectors: { [SPARSE]: { modifier: 'idf' } },
    });
    for (const field of INDEXED_FIELDS) {
      await this.client.createPayloadIndex(name, { field_name: field, field_schema: 'keyword', wait: true });
    }
  }

  private get metaCollection(): string {
    return `${this.collection}_meta`;
  }

  private async ensureCollections(): Promise<void> {
    if ((await this.client.collectionExists(this.collection)).exists) {
      const info = await this.client.getCollection(this.collection);
      const vectors = info.config.params.vectors as Record<string, { size?: number }> | undefined;
      const size = vectors?.[DENSE]?.size;
      if (size !== this.dimensions) {
        throw new Error(
          `Qdrant collection ${this.collection} has ${DENSE} vectors of size ${size}, but the embedder produces ${this.dimensions}`,
        );
      }
    } else {
      await this.createElements(this.collection);
    }
    if (!(await this.client.collectionExists(this.metaCollection)).exists) {
      await this.client.createCollection(this.metaCollection, { vectors: { size: 1, distance: 'Dot' } });
    }
  }

  async load(): Promise<StoreState> {
    this.assertOpen();
    const records: { record: ElementRecord; hash: string }[] = [];
    let offset: Schemas['ExtendedPointId'] | undefined;
    do {
      const page = await this.client.scroll(this.collection, {
        limit: PAGE,
        with_payload: { include: ['record', 'hash'] },
        with_vector: false,
        ...(offset !== undefined ? { offset } : {}),
      });
      for (const point of page.points) {
        records.push({ record: recordFromPayload(point.payload), hash: String(point.payload?.['hash']) });
      }
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    records.sort((a, b) => (a.record.uri < b.record.uri ? -1 : a.record.uri > b.record.uri ? 1 : 0));
    const meta = await this.readMeta();
    const aspects = AspectRecordSchema.array().parse(meta.aspects ?? []);
    return { aspects, records, undo: meta.undo ?? null, backlog: meta.backlog ?? null };
  }

  async upsert(items: readonly UpsertItem[]): Promise<void> {
    this.assertOpen();
    const latest = [...new Map(items.map((item) => [item.record.uri, item])).values()];
    if (latest.length === 0) return;
    for (const item of latest) {
      if (item.vector && item.vector.length !== this.dimensions) {
        throw new Error(
          `Vector of ${item.record.uri} has ${item.vector.length} dimensions, expected ${this.dimensions}`,
        );
      }
    }
    const keep = latest.filter((item) => item.vector === null);
    const existing = new Set<string>();
    if (keep.length > 0) {
      const found = await this.client.retrieve(this.collection, {
        ids: keep.map((item) => pointIdOf(item.record.uri)),
        with_payload: false,
        with_vector: false,
      });
      for (const point of found) existing.add(String(point.id));
    }
    const operations: Schemas['UpdateOperation'][] = [];
    // Upsert replaces a whole point (vectors included), so unchanged content only overwrites the payload.
    const full = latest.filter((item) => item.vector !== null || !existing.has(pointIdOf(item.record.uri)));
    if (full.length > 0) operations.push({ upsert: { points: full.map(elementPoint) } });
    for (const item of keep) {
      const id = pointIdOf(item.record.uri);
      if (existing.has(id))
        operations.push({ overwrite_payload: { payload: elementPayload(item), points: [id] } });
    }
    await this.client.batchUpdate(this.collection, { wait: true, operations });
  }

  async delete(uris: readonly string[]): Promise<void> {
    this.assertOpen();
    const ids = [...new Set(uris)].map(pointIdOf);
    if (ids.length === 0) return;
    await this.client.delete(this.collection, { wait: true, points: ids });
  }

  /** Applies `delta` to the stored list and writes it whole (one meta point: the cost follows the list). */
  async updateAspects(delta: AspectsDelta): Promise<void> {
    await this.writeMeta('aspects', applyAspectsDelta(await this.readAspects(), delta));
  }

  saveUndo(json: unknown): Promise<void> {
    return this.writeMeta('undo', json);
  }

  saveBacklog(json: unknown): Promise<void> {
    return this.writeMeta('backlog', json);
  }

  async search(request: SearchRequest): Promise<SearchHit[]> {
    this.assertOpen();
    if (request.limit <= 0) return [];
    if (request.vector.length !== this.dimensions) {
      throw new Error(
        `The query vector has ${request.vector.length} dimensions, expected ${this.dimensions}`,
      );
    }
    const limit = candidateLimit(request.limit);
    const filter = aspectFilter(request.aspect);
    const text = request.text.trim();
    const terms = queryTerms(text);
    const nearest = async (query: Schemas['QueryInterface'], using: string) =>
      (
        await this.client.query(this.collection, {
          query,
          using,
          limit,
          with_payload: { include: ['record'] },
          with_vector: false,
          ...(filter ? { filter } : {}),
        })
      ).points;
    const sparse = (list: readonly string[]) => {
      const vector = sparseVector(list);
      return vector.indices.length > 0 ? nearest(vector, SPARSE) : Promise.resolve([]);
    };
    const [dense, keyword, names, exact] = await Promise.all([
      nearest(request.vector, DENSE),
      sparse(terms.text),
      sparse(terms.prefixedNames),
      text.length > 0
        ? this.client
            .scroll(this.collection, {
              filter: exactIdFilter(text, request.aspect),
              limit: 10,
              with_payload: { include: ['record'] },
              with_vector: false,
            })
            .then((page) => page.points)
        : Promise.resolve([]),
    ]);
    const records = new Map<string, ElementRecord>();
    const uris = (points: readonly { payload?: Record<string, unknown> | null }[]): string[] =>
      points.map((point) => {
        const record = recordFromPayload(point.payload);
        records.set(record.uri, record);
        return record.uri;
      });
    const sides = { vector: uris(dense), keyword: uris(keyword), names: uris(names), exact: uris(exact) };
    return fuse(request.text, sides, records, request.limit);
  }

  async segments(request: SegmentsRequest): Promise<SegmentsResult> {
    this.assertOpen();
    const excluded = new Set(request.excludedUris ?? []);
    // Only the aspects: the history document, saved with every write, can be large (undo log, idempotency replies).
    const aspects = await this.readAspects();
    // One retrieve per distinct exclusion set: the selector removes the excluded properties server-side.
    const groups = new Map<string, { excludedProperties: readonly string[]; uris: Set<string> }>();
    for (const segment of request.segments) {
      if (excluded.has(segment.uri) || !isElementUri(segment.uri)) continue;
      const excludedProperties = segment.excludedProperties ?? [];
      const key = JSON.stringify([...new Set(excludedProperties)].sort());
      const group = groups.get(key) ?? { excludedProperties, uris: new Set<string>() };
      group.uris.add(segment.uri);
      groups.set(key, group);
    }
    const fetched = new Map<string, Map<string, ElementRecord>>();
    for (const [key, group] of groups) {
      const points = await this.client.retrieve(this.collection, {
        ids: [...group.uris].map(pointIdOf),
        with_payload: segmentSelector(group.excludedProperties),
        with_vector: false,
      });
      const records = new Map<string, ElementRecord>();
      for (const point of points) {
        const record = recordFromPayload(point.payload);
        records.set(record.uri, record);
      }
      fetched.set(key, records);
    }
    // Segment by segment, so that the same uri requested with two exclusion sets reads from its own fetch.
    const out: SegmentsResult = { segments: [], missing: [] };
    for (const segment of request.segments) {
      const key = JSON.stringify([...new Set(segment.excludedProperties ?? [])].sort());
      const records = fetched.get(key);
      const one = buildSegments(
        { aspects, record: (uri) => records?.get(uri) },
        { segments: [segment], ...(request.excludedUris ? { excludedUris: request.excludedUris } : {}) },
      );
      out.segments.push(...one.segments);
      out.missing.push(...one.missing);
    }
    return out;
  }

  async close(): Promise<void> {
    // The REST client holds no connection to release.
    this.closed = true;
  }

  private async writeMeta(key: MetaKey, value: unknown): Promise<void> {
    this.assertOpen();
    await this.client.upsert(this.metaCollection, {
      wait: true,
      points: [
        {
          id: metaId(key),
          vector: [1],
          payload: { key, schemaVersion: 1, json: JSON.stringify(value ?? null) },
        },
      ],
    });
  }

  private async readAspects(): Promise<AspectRecord[]> {
    return AspectRecordSchema.array().parse((await this.readMeta(['aspects'])).aspects ?? []);
  }

  private async readMeta(keys: readonly MetaKey[] = META_KEYS): Promise<Partial<Record<MetaKey, unknown>>> {
    const points = await this.client.retrieve(this.metaCollection, {
      ids: keys.map(metaId),
      with_payload: true,
      with_vector: false,
    });
    const out: Partial<Record<MetaKey, unknown>> = {};
    for (const point of points) {
      const key = META_KEYS.find((candidate) => candidate === point.payload?.['key']);
      const json = point.payload?.['json'];
      if (key && typeof json === 'string') out[key] = JSON.parse(json) as unknown;
    }
    return out;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('QdrantResourceStore is closed');
  }
}
