import type { Schemas } from '@qdrant/js-client-rest';
import {
  byCreation,
  candidateLimit,
  fuseMemoryHits,
  type MemoryFilter,
  type MemoryHit,
  type MemoryRow,
  type MemorySearchRequest,
  type MemoryStore,
  type MemoryUpsert,
  memoryRowKind,
  memoryTerms,
  SEARCHED_MEMORY_KINDS,
} from '@novelrag/repository';
import { DENSE, SPARSE } from './qdrant-mapping';
import { resizeCollection, type StoredPoint } from './qdrant-resize';
import type { QdrantPort } from './qdrant-store';
import { sparseVector } from './sparse';
import { pointIdOf } from './uuid5';

/** Format of the memory payload (`schemaVersion` in every point). */
export const QDRANT_MEMORY_PAYLOAD_VERSION = 1;
const INDEXED = ['id', 'thread_id', 'goal_id', 'kind'] as const;
const PAGE = 256;
const FIELDS = ['id', 'thread_id', 'kind', 'goal_id', 'created_at', 'text'];

/** A memory's point id: UUIDv5 of `memory:<id>` (deterministic, so upserts by id are idempotent). */
const pointOf = (id: string): string => pointIdOf(`memory:${id}`);

function rowOf(payload: Record<string, unknown> | null | undefined): MemoryRow {
  const fields = [payload?.['id'], payload?.['thread_id'], payload?.['created_at'], payload?.['text']];
  if (fields.some((value) => typeof value !== 'string')) throw new Error('The Qdrant point is not a memory');
  const kind = memoryRowKind(payload?.['kind']);
  const goalId = payload?.['goal_id'];
  return {
    id: String(payload?.['id']),
    threadId: String(payload?.['thread_id']),
    kind,
    goalId: typeof goalId === 'string' ? goalId : null,
    createdAt: String(payload?.['created_at']),
    text: String(payload?.['text']),
  };
}

const match = (key: string, value: string) => ({ key, match: { value } });

export interface MemoryResizeOptions {
  readonly embed?: ((texts: readonly string[]) => Promise<number[][]>) | undefined;
  readonly log?: ((message: string) => void) | undefined;
}

async function createMemoryCollection(client: QdrantPort, name: string, dimensions: number): Promise<void> {
  await client.createCollection(name, {
    vectors: { [DENSE]: { size: dimensions, distance: 'Cosine' } },
    sparse_vectors: { [SPARSE]: { modifier: 'idf' } },
  });
  for (const field of INDEXED) {
    await client.createPayloadIndex(name, { field_name: field, field_schema: 'keyword', wait: true });
  }
}

/** A memory's point: the dense vector when given (never for the summary), the sparse one of its terms, the payload. */
function memoryPoint(
  row: MemoryRow,
  vector: readonly number[] | null,
  dimensions: number,
): Schemas['PointStruct'] {
  if (vector && vector.length !== dimensions)
    throw new Error(`Vector of memory ${row.id} has ${vector.length} dimensions, expected ${dimensions}`);
  const sparse = sparseVector(memoryTerms(row.text));
  return {
    id: pointOf(row.id),
    vector: { ...(vector ? { [DENSE]: [...vector] } : {}), [SPARSE]: sparse },
    payload: {
      schemaVersion: QDRANT_MEMORY_PAYLOAD_VERSION,
      id: row.id,
      thread_id: row.threadId,
      kind: row.kind,
      goal_id: row.goalId,
      created_at: row.createdAt,
      text: row.text,
    },
  };
}

/**
 * Stored memory points at a new size: searched kinds re-embedded from their text when `embed` is given (not for the
 * staging collection: each memory is embedded once, when it reaches the resized collection).
 */
async function rebuildMemories(
  points: readonly StoredPoint[],
  dimensions: number,
  embed: MemoryResizeOptions['embed'],
): Promise<Schemas['PointStruct'][]> {
  const rows = points.map((point) => rowOf(point.payload));
  const searched = embed ? rows.filter((row) => SEARCHED_MEMORY_KINDS.includes(row.kind)) : [];
  const vectors = embed && searched.length > 0 ? await embed(searched.map((row) => row.text)) : [];
  if (vectors.length !== searched.length) throw new Error('The embedder returned a wrong number of vectors');
  const vectorOf = new Map(searched.map((row, index) => [row.id, vectors[index] ?? null]));
  return rows.map((row) => memoryPoint(row, vectorOf.get(row.id) ?? null, dimensions));
}

/**
 * Thread memories on Qdrant: the collection `<elements collection>_memory`, one point per memory (id = UUIDv5 of
 * the memory id) with the dense vector `dense` (cosine; absent for the summary) and the sparse vector `bm25` of its
 * analysed terms (IDF by the server); payload = id, thread_id, kind, goal_id, created_at, text, with keyword
 * indexes on the filter fields. Search = a dense and a sparse Query API call, both filtered to the thread's episodic
 * and semantic points, fused by `fuseMemoryHits`. Every write waits, so it is visible to the next read.
 */
export class QdrantMemoryCollection implements MemoryStore {
  private constructor(
    private readonly client: QdrantPort,
    private readonly collection: string,
    private readonly dimensions: number,
    private readonly assertOpen: () => void,
  ) {}

  /**
   * Creates the collection and its payload indexes when absent; one of another dense size is resized, its searched
   * memories re-embedded with `resize.embed` (see `resizeCollection`).
   */
  static async open(
    client: QdrantPort,
    collection: string,
    dimensions: number,
    assertOpen: () => void,
    resize: MemoryResizeOptions = {},
  ): Promise<QdrantMemoryCollection> {
    await resizeCollection({
      client,
      collection,
      dimensions,
      create: (name) => createMemoryCollection(client, name, dimensions),
      rebuild: (points, staging) => rebuildMemories(points, dimensions, staging ? undefined : resize.embed),
      log: resize.log,
    });
    if ((await client.collectionExists(collection)).exists) {
      const info = await client.getCollection(collection);
      const vectors = info.config.params.vectors as Record<string, { size?: number }> | undefined;
      const size = vectors?.[DENSE]?.size;
      if (size !== dimensions)
        throw new Error(
          `Qdrant collection ${collection} has ${DENSE} vectors of size ${size}, not ${dimensions}`,
        );
    } else {
      await createMemoryCollection(client, collection, dimensions);
    }
    return new QdrantMemoryCollection(client, collection, dimensions, assertOpen);
  }

  async upsertMemories(items: readonly MemoryUpsert[]): Promise<void> {
    this.assertOpen();
    const latest = [...new Map(items.map((item) => [item.row.id, item])).values()];
    if (latest.length === 0) return;
    const points = latest.map(({ row, vector }) => memoryPoint(row, vector, this.dimensions));
    await this.client.upsert(this.collection, { wait: true, points });
  }

  async listMemories(filter: MemoryFilter): Promise<MemoryRow[]> {
    this.assertOpen();
    const must = [match('thread_id', filter.threadId)];
    if (filter.goalId !== undefined) must.push(match('goal_id', filter.goalId));
    const rows: MemoryRow[] = [];
    let offset: Schemas['ExtendedPointId'] | undefined;
    do {
      const page = await this.client.scroll(this.collection, {
        filter: { must },
        limit: PAGE,
        with_payload: { include: FIELDS },
        with_vector: false,
        ...(offset !== undefined ? { offset } : {}),
      });
      for (const point of page.points) rows.push(rowOf(point.payload));
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    return rows.sort(byCreation);
  }

  async getMemory(id: string): Promise<MemoryRow | null> {
    this.assertOpen();
    const [point] = await this.client.retrieve(this.collection, {
      ids: [pointOf(id)],
      with_payload: { include: FIELDS },
      with_vector: false,
    });
    return point ? rowOf(point.payload) : null;
  }

  async deleteMemories(ids: readonly string[]): Promise<void> {
    this.assertOpen();
    const points = [...new Set(ids)].map(pointOf);
    if (points.length === 0) return;
    await this.client.delete(this.collection, { wait: true, points });
  }

  async searchMemories(request: MemorySearchRequest): Promise<MemoryHit[]> {
    this.assertOpen();
    if (request.limit <= 0) return [];
    if (request.vector.length !== this.dimensions)
      throw new Error(
        `The query vector has ${request.vector.length} dimensions, expected ${this.dimensions}`,
      );
    const filter: Schemas['Filter'] = {
      must: [
        match('thread_id', request.threadId),
        { key: 'kind', match: { any: [...SEARCHED_MEMORY_KINDS] } },
      ],
    };
    const nearest = async (query: Schemas['QueryInterface'], using: string) =>
      (
        await this.client.query(this.collection, {
          query,
          using,
          filter,
          limit: candidateLimit(request.limit),
          with_payload: { include: FIELDS },
          with_vector: false,
        })
      ).points;
    const sparse = sparseVector(memoryTerms(request.text));
    const [dense, keyword] = await Promise.all([
      nearest(request.vector, DENSE),
      sparse.indices.length > 0 ? nearest(sparse, SPARSE) : Promise.resolve([]),
    ]);
    const rows = new Map<string, MemoryRow>();
    const ids = (points: readonly { payload?: Record<string, unknown> | null }[]): string[] =>
      points.map((point) => {
        const row = rowOf(point.payload);
        rows.set(row.id, row);
        return row.id;
      });
    return fuseMemoryHits({ vector: ids(dense), keyword: ids(keyword) }, rows, request.limit);
  }
}
