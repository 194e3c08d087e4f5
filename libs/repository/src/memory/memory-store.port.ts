/**
 * The thread-memory part of the store port (`ResourceStore.memory`): rows of what a conversation thread remembers,
 * kept next to the repository's elements in the same store (in memory, LanceDB, Qdrant) and checked by the same
 * contract suite. `ThreadMemory` gives them their meaning (ids, replace-by-goal, the summary); the store only keeps,
 * filters and searches rows.
 */

/** `episodic`: a question and its answer; `semantic`: a fact the user stated; `summary`: the thread's one summary. */
export type MemoryRowKind = 'episodic' | 'semantic' | 'summary';

export const MEMORY_ROW_KINDS: readonly MemoryRowKind[] = ['episodic', 'semantic', 'summary'];

/** `value` as a row kind; throws when a stored row holds something else. */
export function memoryRowKind(value: unknown): MemoryRowKind {
  const kind = MEMORY_ROW_KINDS.find((candidate) => candidate === value);
  if (!kind) throw new Error(`not a memory kind: ${JSON.stringify(value)}`);
  return kind;
}

/** The kinds a memory search returns (the summary is read by id, never searched). */
export const SEARCHED_MEMORY_KINDS: readonly MemoryRowKind[] = ['episodic', 'semantic'];

export interface MemoryRow {
  /** `mem-<hex>`, chosen by `ThreadMemory` (stable per thread, goal and position). */
  readonly id: string;
  readonly threadId: string;
  readonly kind: MemoryRowKind;
  /** The goal that produced it; null for the summary. */
  readonly goalId: string | null;
  /** Readable text (what is embedded and analysed). */
  readonly text: string;
  /** ISO timestamp. */
  readonly createdAt: string;
}

export interface MemoryUpsert {
  readonly row: MemoryRow;
  /** The embedding of `row.text`; null for rows never searched (the summary). */
  readonly vector: number[] | null;
}

export interface MemoryFilter {
  readonly threadId: string;
  /** Only the rows of this goal. */
  readonly goalId?: string;
}

export interface MemorySearchRequest {
  readonly threadId: string;
  /** The query text (keyword side). */
  readonly text: string;
  /** The query's embedding (vector side). */
  readonly vector: number[];
  readonly limit: number;
}

export interface MemoryHit {
  readonly row: MemoryRow;
  /** Higher is better; comparable only within one result list. */
  readonly score: number;
}

/**
 * Where thread memories persist. Writes are idempotent (upsert by id; deleting an absent id is a no-op) and visible
 * to the next read; every method rejects with the store's own error on failure (`ThreadMemory` wraps it as
 * UNAVAILABLE).
 */
export interface MemoryStore {
  /** Inserts or replaces rows by id. */
  upsertMemories(items: readonly MemoryUpsert[]): Promise<void>;
  /** The rows of a thread (of one goal when asked), oldest first (ties by id). */
  listMemories(filter: MemoryFilter): Promise<MemoryRow[]>;
  /** The row with this id, or null. */
  getMemory(id: string): Promise<MemoryRow | null>;
  /** Removes rows by id. */
  deleteMemories(ids: readonly string[]): Promise<void>;
  /**
   * Hybrid search over the thread's episodic and semantic rows only: BM25 over the analysed text (`memoryTerms`)
   * and vector similarity, each a candidate list of `candidateLimit(limit)`, fused by `fuseMemoryHits`. Best first,
   * at most `limit`.
   */
  searchMemories(request: MemorySearchRequest): Promise<MemoryHit[]>;
}
