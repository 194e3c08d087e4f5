import { cosine } from '../scoring';
import { Bm25Index, candidateLimit } from '../text';
import { fuseMemoryHits, memoryTerms } from './memory-search';
import {
  type MemoryFilter,
  type MemoryHit,
  type MemoryRow,
  type MemorySearchRequest,
  type MemoryStore,
  type MemoryUpsert,
  SEARCHED_MEMORY_KINDS,
} from './memory-store.port';

/** Oldest first, ties by id. */
export function byCreation(a: MemoryRow, b: MemoryRow): number {
  return a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The reference MemoryStore: rows in a map, BM25 over their analysed text and cosine over their vectors, fused like
 * every store's. Part of `InMemoryResourceStore`; `exportMemories()` and the constructor carry it across a restart.
 */
export class InMemoryMemoryStore implements MemoryStore {
  private readonly rows = new Map<string, MemoryUpsert>();
  private readonly keyword = new Bm25Index();

  constructor(
    private readonly assertOpen: () => void = () => undefined,
    initial: readonly MemoryUpsert[] = [],
  ) {
    for (const item of initial) this.set(item);
  }

  /** Every row with its vector (for a store rebuilt from this one). */
  exportMemories(): MemoryUpsert[] {
    return structuredClone([...this.rows.values()]);
  }

  async upsertMemories(items: readonly MemoryUpsert[]): Promise<void> {
    this.assertOpen();
    for (const item of items) this.set(structuredClone(item));
  }

  async listMemories(filter: MemoryFilter): Promise<MemoryRow[]> {
    this.assertOpen();
    return [...this.rows.values()]
      .map(({ row }) => row)
      .filter((row) => row.threadId === filter.threadId)
      .filter((row) => filter.goalId === undefined || row.goalId === filter.goalId)
      .sort(byCreation)
      .map((row) => ({ ...row }));
  }

  async getMemory(id: string): Promise<MemoryRow | null> {
    this.assertOpen();
    const found = this.rows.get(id);
    return found ? { ...found.row } : null;
  }

  async deleteMemories(ids: readonly string[]): Promise<void> {
    this.assertOpen();
    for (const id of ids) {
      this.rows.delete(id);
      this.keyword.delete(id);
    }
  }

  async searchMemories(request: MemorySearchRequest): Promise<MemoryHit[]> {
    this.assertOpen();
    if (request.limit <= 0) return [];
    const limit = candidateLimit(request.limit);
    const candidates = new Map<string, MemoryRow>();
    for (const { row } of this.rows.values()) {
      if (row.threadId === request.threadId && SEARCHED_MEMORY_KINDS.includes(row.kind))
        candidates.set(row.id, row);
    }
    const vector = [...candidates.keys()]
      .flatMap((id) => {
        const stored = this.rows.get(id)?.vector;
        return stored && stored.some((x) => x !== 0) ? [{ id, score: cosine(request.vector, stored) }] : [];
      })
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((hit) => hit.id);
    const keyword = this.keyword.search(memoryTerms(request.text), limit, (id) => candidates.has(id));
    return fuseMemoryHits({ keyword, vector }, candidates, request.limit);
  }

  private set(item: MemoryUpsert): void {
    this.rows.set(item.row.id, item);
    this.keyword.set(item.row.id, memoryTerms(item.row.text));
  }
}
