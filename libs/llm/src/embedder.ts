/**
 * Turns texts into vectors for semantic search. Implementations: `OpenAIEmbeddings` (any `/v1/embeddings` server)
 * and the resource-service's local hashed n-gram embedder (offline default).
 */
export interface Embedder {
  /** Length of every vector `embed` returns; fixed for the embedder's lifetime (the vector store is sized by it). */
  readonly dimensions: number;
  /**
   * Which model makes the vectors (e.g. `openai-compatible:bge-m3:1024`): stored vectors made by another model are
   * re-embedded. Absent means one fixed model.
   */
  readonly id?: string;
  /**
   * One vector per text, in the order given (an empty list gives an empty list).
   *
   * Throws `CancelledError` when `signal` aborts, `ModelTimeoutError` on deadline, `ModelUnavailableError` when the
   * provider fails, and `ConfigError` when the provider's vectors do not have `dimensions` entries.
   */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}
