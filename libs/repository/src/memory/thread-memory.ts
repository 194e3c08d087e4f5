import { createHash } from 'node:crypto';
import { ResourceError } from '../errors';
import { guard } from '../failures';
import { AsyncMutex } from '../mutex';
import type { Embedder } from '../store.port';
import type { MemoryRow, MemoryStore, MemoryUpsert } from './memory-store.port';

/** A memory as callers see it (the shape of the memory contract's `MemoryItem`). */
export interface ThreadMemoryItem {
  readonly id: string;
  readonly threadId: string;
  readonly kind: 'episodic' | 'semantic';
  readonly text: string;
  readonly goalId?: string;
  readonly createdAt: string;
  readonly score?: number;
}

/** One answered question of a goal, with the thread's refreshed summary and the facts the user stated. */
export interface ThreadInteraction {
  readonly threadId: string;
  readonly goalId: string;
  readonly question: string;
  readonly answer: string;
  readonly summary?: string;
  readonly facts?: readonly string[];
}

export const DEFAULT_MEMORY_RESULTS = 5;

/** `mem-` and 24 hex digits of sha256 over the parts: the same thread, goal and position give the same id. */
export function memoryId(...parts: readonly string[]): string {
  return `mem-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24)}`;
}

/** The readable text of an exchange. */
export function exchangeText(question: string, answer: string): string {
  return `Q: ${question}\nA: ${answer}`;
}

function item(row: MemoryRow, score?: number): ThreadMemoryItem {
  if (row.kind === 'summary')
    throw new ResourceError('VALIDATION_FAILED', 'the summary is not a memory item');
  return {
    id: row.id,
    threadId: row.threadId,
    kind: row.kind,
    text: row.text,
    ...(row.goalId !== null ? { goalId: row.goalId } : {}),
    createdAt: row.createdAt,
    ...(score !== undefined ? { score } : {}),
  };
}

/**
 * The memory of conversation threads over a `MemoryStore` and the repository's embedder: what the resource-service
 * answers on `novelrag.memory.*`. Per thread: one session summary (a row of kind `summary`), episodic memories (one
 * per goal: its question and answer) and semantic memories (the facts stated in a goal). Storing a goal's exchange
 * again replaces what that goal stored (stable ids, upsert first, then the goal's leftovers are deleted, so a retry
 * after a crash converges). Writes are serialised in this process. Store and embedder failures are UNAVAILABLE.
 */
export class ThreadMemory {
  private readonly writes = new AsyncMutex();

  constructor(
    private readonly store: MemoryStore,
    private readonly embedder: Embedder,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  async sessionSummary(threadId: string): Promise<string | null> {
    const row = await guard('read the session summary', () =>
      this.store.getMemory(memoryId('summary', threadId)),
    );
    return row && row.kind === 'summary' && row.threadId === threadId ? row.text : null;
  }

  /** The thread's memories most relevant to `query`, best first (hybrid search), at most `limit`. */
  async retrieveRelevant(
    query: string,
    threadId: string,
    limit = DEFAULT_MEMORY_RESULTS,
  ): Promise<ThreadMemoryItem[]> {
    const [vector] = await guard('embed the memory query', () => this.embedder.embed([query]));
    if (!vector) throw new ResourceError('UNAVAILABLE', 'the embedder returned no vector for the query');
    const hits = await guard('search the thread memory', () =>
      this.store.searchMemories({ threadId, text: query, vector, limit }),
    );
    return hits.map((hit) => item(hit.row, hit.score));
  }

  /** Keeps the exchange (replacing the goal's previous one); returns how many memories the goal now has. */
  storeInteraction(interaction: ThreadInteraction): Promise<number> {
    return this.writes.run(async () => {
      const { threadId, goalId } = interaction;
      const facts = [...new Set(interaction.facts ?? [])];
      const texts = [exchangeText(interaction.question, interaction.answer), ...facts];
      const vectors = await guard('embed the memories', () => this.embedder.embed(texts));
      if (vectors.length !== texts.length)
        throw new ResourceError('UNAVAILABLE', 'the embedder returned the wrong number of vectors');
      const createdAt = this.now();
      const rows: MemoryUpsert[] = texts.map((text, index) => ({
        row: {
          id:
            index === 0
              ? memoryId('episodic', threadId, goalId)
              : memoryId('semantic', threadId, goalId, text),
          threadId,
          kind: index === 0 ? 'episodic' : 'semantic',
          goalId,
          text,
          createdAt,
        },
        vector: vectors[index] ?? null,
      }));
      if (interaction.summary !== undefined) {
        const id = memoryId('summary', threadId);
        rows.push({
          row: { id, threadId, kind: 'summary', goalId: null, text: interaction.summary, createdAt },
          vector: null,
        });
      }
      const before = await guard('read the thread memory', () =>
        this.store.listMemories({ threadId, goalId }),
      );
      await guard('store the memories', () => this.store.upsertMemories(rows));
      const kept = new Set(rows.map(({ row }) => row.id));
      const stale = before.filter((row) => !kept.has(row.id)).map((row) => row.id);
      if (stale.length > 0) await guard('replace the memories', () => this.store.deleteMemories(stale));
      return texts.length;
    });
  }

  /** Removes everything of the thread; returns how many rows went (the summary counts as one). */
  forget(threadId: string): Promise<number> {
    return this.writes.run(async () => {
      const rows = await guard('read the thread memory', () => this.store.listMemories({ threadId }));
      if (rows.length > 0)
        await guard('forget the thread', () => this.store.deleteMemories(rows.map((row) => row.id)));
      return rows.length;
    });
  }
}
