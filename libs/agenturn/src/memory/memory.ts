/**
 * The memory of a conversation thread, shared by the agent kinds (the RAG agent, the assistant, and the four-phase loop
 * when it wants to): a session summary, episodic memories (past questions and answers) and semantic memories (facts the
 * user stated). The agent computes the summary and extracts the facts with its own model; the memory only keeps,
 * embeds and searches them. Implementations: the resource-service's memory over the bus (production) and
 * `InMemoryMemory` from `@novelrag/agenturn/testing`.
 */

/** What a memory item remembers: an exchange (`episodic`) or a fact the user stated (`semantic`). */
export type MemoryKind = 'episodic' | 'semantic';

export interface MemoryItem {
  readonly id: string;
  readonly threadId: string;
  readonly kind: MemoryKind;
  /** Readable text: "Q: … / A: …" for an exchange, the fact itself for a semantic memory. */
  readonly text: string;
  /** The goal that produced it, when known. */
  readonly goalId?: string;
  readonly createdAt: string;
  /** Relevance to the query that retrieved it (higher is better); absent outside retrieval. */
  readonly score?: number;
}

/** One answered question, as an agent stores it after answering. */
export interface StoredInteraction {
  readonly threadId: string;
  readonly goalId: string;
  readonly question: string;
  readonly answer: string;
  /** The thread's refreshed session summary (replaces the previous one); absent: keep the previous one. */
  readonly summary?: string;
  /** Facts the user stated in this exchange, kept as semantic memories. */
  readonly facts?: readonly string[];
}

export interface RetrieveOptions {
  /** At most this many items, best first (default 5). */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

/**
 * Thread-scoped memory. Every method is bounded by the implementation's own timeout; failures throw coded
 * `AgenturnError`s (UNAVAILABLE / TIMEOUT for transport trouble, VALIDATION_FAILED for bad input). Nothing is shared
 * between threads.
 */
export interface MemoryPort {
  /** The thread's session summary, or null when the thread has none yet. */
  sessionSummary(threadId: string, signal?: AbortSignal): Promise<string | null>;
  /** The thread's memories most relevant to `query` (episodic and semantic), best first; [] when none. */
  retrieveRelevant(query: string, threadId: string, options?: RetrieveOptions): Promise<MemoryItem[]>;
  /** Keeps an exchange (and its summary and facts). Storing the same goal's exchange again replaces it. */
  storeInteraction(interaction: StoredInteraction, signal?: AbortSignal): Promise<void>;
  /** Forgets everything of the thread; returns how many items were removed (the summary counts as one). */
  forget(threadId: string, signal?: AbortSignal): Promise<number>;
}
