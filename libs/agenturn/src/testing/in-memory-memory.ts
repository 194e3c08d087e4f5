import type { MemoryItem, MemoryPort, RetrieveOptions, StoredInteraction } from '../memory/memory';

/** Words of a text for the naive overlap score (lower-cased; CJK characters count one by one). */
function words(text: string): Set<string> {
  const lower = text.toLowerCase();
  const latin = lower.match(/[a-z0-9]+/g) ?? [];
  const cjk = lower.match(/[\u3400-\u9fff]/g) ?? [];
  return new Set([...latin, ...cjk]);
}

/**
 * A `MemoryPort` in process memory with a naive word-overlap relevance: for tests and clearly labelled offline demos.
 * Honours the port's contract (thread isolation, replace-by-goal, forget counts).
 */
export class InMemoryMemory implements MemoryPort {
  private readonly summaries = new Map<string, string>();
  private readonly items: MemoryItem[] = [];
  private seq = 0;

  constructor(private readonly now: () => string = () => new Date().toISOString()) {}

  sessionSummary(threadId: string): Promise<string | null> {
    return Promise.resolve(this.summaries.get(threadId) ?? null);
  }

  retrieveRelevant(query: string, threadId: string, options: RetrieveOptions = {}): Promise<MemoryItem[]> {
    const wanted = words(query);
    const scored = this.items
      .filter((item) => item.threadId === threadId)
      .map((item) => {
        const have = words(item.text);
        let overlap = 0;
        for (const w of wanted) if (have.has(w)) overlap += 1;
        return { ...item, score: wanted.size ? overlap / wanted.size : 0 };
      })
      .filter((item) => item.score > 0)
      .sort((a, b) => b.score - a.score || b.createdAt.localeCompare(a.createdAt));
    return Promise.resolve(scored.slice(0, options.limit ?? 5));
  }

  storeInteraction(interaction: StoredInteraction): Promise<void> {
    const { threadId, goalId } = interaction;
    for (let i = this.items.length - 1; i >= 0; i -= 1) {
      const item = this.items[i];
      if (item && item.threadId === threadId && item.goalId === goalId) this.items.splice(i, 1);
    }
    const createdAt = this.now();
    const add = (kind: MemoryItem['kind'], text: string) =>
      this.items.push({ id: `m-${++this.seq}`, threadId, goalId, kind, text, createdAt });
    add('episodic', `Q: ${interaction.question}\nA: ${interaction.answer}`);
    for (const fact of interaction.facts ?? []) add('semantic', fact);
    if (interaction.summary !== undefined) this.summaries.set(threadId, interaction.summary);
    return Promise.resolve();
  }

  forget(threadId: string): Promise<number> {
    let removed = this.summaries.delete(threadId) ? 1 : 0;
    for (let i = this.items.length - 1; i >= 0; i -= 1) {
      if (this.items[i]?.threadId === threadId) {
        this.items.splice(i, 1);
        removed += 1;
      }
    }
    return Promise.resolve(removed);
  }
}
