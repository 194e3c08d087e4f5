import type { Embedder } from './store.port';

/**
 * The OFFLINE FALLBACK embedder, used when no embeddings model is configured: character 1-3 grams (so CJK text,
 * which has no spaces, still overlaps), each hashed (FNV-1a) to a signed bucket, weighted by gram length,
 * L2-normalised. Deterministic, no network, same text → same vector; it knows spelling, not meaning, so search
 * leans on the keyword and name sides until a real model (`NOVELRAG_EMBEDDING_MODEL`) is configured.
 */
export class LocalEmbedder implements Embedder {
  readonly dimensions: number;
  readonly id: string;

  constructor(dimensions = 256) {
    if (!Number.isInteger(dimensions) || dimensions < 1)
      throw new RangeError('dimensions must be a positive integer');
    this.dimensions = dimensions;
    this.id = `local-hashed-ngrams:${dimensions}`;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** Synchronous form of `embed` for one text. */
  embedOne(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const chars = [...text.normalize('NFKC').toLowerCase()];
    for (let n = 1; n <= 3; n++) {
      for (let i = 0; i + n <= chars.length; i++) {
        const hash = fnv1a(`${n}:${chars.slice(i, i + n).join('')}`);
        const bucket = hash % this.dimensions;
        const sign = hash >>> 31 === 1 ? -1 : 1;
        vector[bucket] = (vector[bucket] as number) + sign * n;
      }
    }
    const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    return norm === 0 ? vector : vector.map((x) => x / norm);
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
