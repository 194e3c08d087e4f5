import { cosine } from '../scoring';

/** Extra candidates the approximate (float32) pass keeps before the exact cosine re-ranks them. */
const RERANK_MARGIN = 16;

/**
 * The in-memory store's vector side: every vector normalised once, on write, into one contiguous float32 matrix per
 * vector size (a slot per id, freed slots reused), so a query is a dot product per row of its size and a bounded
 * top-k, without allocating per row. The top `limit + RERANK_MARGIN` of that pass are scored again with the exact
 * double-precision `cosine` of the stored vectors and sorted (score, then id), so the ranking is the one a full exact
 * scan gives. Rows are grouped by a key (the aspect): a filtered query computes the dot products of its group's rows
 * only. Sizes never mix: a query is compared with the vectors of its own size only (while the repository re-embeds
 * for a model of another size, possibly across a restart, both sizes are held, in any order; the old ones go as their
 * rows are rewritten). Zero vectors (an element never embedded) are not indexed: cosine search never returns them.
 */
export class VectorIndex {
  private readonly bySize = new Map<number, SizedIndex>();
  private readonly sizeOf = new Map<string, number>();

  get size(): number {
    return this.sizeOf.size;
  }

  set(id: string, vector: readonly number[], group: string): void {
    this.delete(id);
    if (!vector.some((x) => x !== 0)) return;
    let index = this.bySize.get(vector.length);
    if (!index) this.bySize.set(vector.length, (index = new SizedIndex(vector.length)));
    index.set(id, vector, group);
    this.sizeOf.set(id, vector.length);
  }

  delete(id: string): void {
    const size = this.sizeOf.get(id);
    if (size === undefined) return;
    this.sizeOf.delete(id);
    const index = this.bySize.get(size);
    index?.delete(id);
    if (index?.size === 0) this.bySize.delete(size);
  }

  /** The ids of the `limit` vectors most similar (cosine) to `query`, best first, ties by id; only `group` if given. */
  search(query: readonly number[], limit: number, group?: string): string[] {
    return this.bySize.get(query.length)?.search(query, limit, group) ?? [];
  }
}

/** The vectors of one size (see `VectorIndex`). */
class SizedIndex {
  private matrix = new Float32Array(0);
  private readonly slotOf = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private readonly vectors: (readonly number[] | undefined)[] = [];
  private readonly free: number[] = [];
  /** The group of each slot (undefined: a free slot). */
  private readonly groupOf: (string | undefined)[] = [];

  constructor(private readonly dimensions: number) {}

  get size(): number {
    return this.slotOf.size;
  }

  set(id: string, vector: readonly number[], group: string): void {
    this.delete(id);
    let norm = 0;
    for (const x of vector) norm += x * x;
    if (vector.length !== this.dimensions || norm === 0) return;
    const slot = this.free.pop() ?? this.grow();
    const scale = 1 / Math.sqrt(norm);
    const base = slot * this.dimensions;
    for (let i = 0; i < this.dimensions; i++) this.matrix[base + i] = (vector[i] as number) * scale;
    this.slotOf.set(id, slot);
    this.ids[slot] = id;
    this.vectors[slot] = vector;
    this.groupOf[slot] = group;
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.vectors[slot] = undefined;
    this.groupOf[slot] = undefined;
    this.free.push(slot);
  }

  /** The ids of the `limit` vectors most similar (cosine) to `query`, best first, ties by id; only `group` if given. */
  search(query: readonly number[], limit: number, group?: string): string[] {
    if (limit <= 0 || query.length !== this.dimensions || this.slotOf.size === 0) return [];
    let norm = 0;
    for (const x of query) norm += x * x;
    if (norm === 0) return [];
    const q = Float32Array.from(query, (x) => x / Math.sqrt(norm));
    const keep = limit + RERANK_MARGIN;
    const top = new TopK(keep, this.ids);
    const d = this.dimensions;
    const matrix = this.matrix;
    const groups = this.groupOf;
    for (let slot = 0; slot < groups.length; slot++) {
      const of = groups[slot];
      if (of !== undefined && (group === undefined || of === group))
        top.offer(slot, dot(matrix, slot * d, q, d));
    }
    return top
      .slots()
      .map((slot) => ({
        id: this.ids[slot] as string,
        score: cosine(query, this.vectors[slot] as readonly number[]),
      }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((hit) => hit.id);
  }

  /** A new slot at the end, doubling the matrix when it is full. */
  private grow(): number {
    const slot = this.ids.length;
    this.ids.push(undefined);
    this.vectors.push(undefined);
    this.groupOf.push(undefined);
    if ((slot + 1) * this.dimensions > this.matrix.length) {
      const bigger = new Float32Array(Math.max(64, (slot + 1) * 2) * this.dimensions);
      bigger.set(this.matrix);
      this.matrix = bigger;
    }
    return slot;
  }
}

/** The dot product of the matrix row starting at `base` with `q` (a plain loop V8 compiles tightly). */
function dot(matrix: Float32Array, base: number, q: Float32Array, d: number): number {
  let sum = 0;
  for (let i = 0; i < d; i++) sum += (matrix[base + i] as number) * (q[i] as number);
  return sum;
}

/**
 * A bounded min-heap of (slot, score): keeps the `capacity` best offered, best meaning a higher score, then (on equal
 * scores) a smaller id, as the final ranking orders them. The root is the worst entry kept.
 */
class TopK {
  private readonly heapSlots: number[] = [];
  private readonly heapScores: number[] = [];

  constructor(
    private readonly capacity: number,
    private readonly ids: readonly (string | undefined)[],
  ) {}

  offer(slot: number, score: number): void {
    const n = this.heapScores.length;
    if (n < this.capacity) {
      this.heapSlots.push(slot);
      this.heapScores.push(score);
      this.up(n);
    } else if (this.below(this.heapSlots[0] as number, this.heapScores[0] as number, slot, score)) {
      this.heapSlots[0] = slot;
      this.heapScores[0] = score;
      this.down(0);
    }
  }

  slots(): number[] {
    return [...this.heapSlots];
  }

  /** Whether (slotA, scoreA) ranks below (slotB, scoreB). */
  private below(slotA: number, scoreA: number, slotB: number, scoreB: number): boolean {
    if (scoreA !== scoreB) return scoreA < scoreB;
    return (this.ids[slotA] as string) > (this.ids[slotB] as string);
  }

  private belowAt(a: number, b: number): boolean {
    return this.below(
      this.heapSlots[a] as number,
      this.heapScores[a] as number,
      this.heapSlots[b] as number,
      this.heapScores[b] as number,
    );
  }

  private up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.belowAt(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(index: number): void {
    const n = this.heapScores.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < n && this.belowAt(left, worst)) worst = left;
      if (right < n && this.belowAt(right, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(a: number, b: number): void {
    [this.heapSlots[a], this.heapSlots[b]] = [this.heapSlots[b] as number, this.heapSlots[a] as number];
    [this.heapScores[a], this.heapScores[b]] = [this.heapScores[b] as number, this.heapScores[a] as number];
  }
}
