import type { OperationHistoryEntry } from '@novelrag/contracts';
import type { RandomSource } from './decider-options';

/** Picks an index with probability proportional to its weight; -1 when no weight is positive. */
export function weightedIndex(weights: readonly number[], random: RandomSource): number {
  const total = weights.reduce((sum, w) => sum + (w > 0 ? w : 0), 0);
  if (total <= 0) return -1;
  let point = random() * total;
  for (let i = 0; i < weights.length; i += 1) {
    const w = weights[i] ?? 0;
    if (w <= 0) continue;
    if (point < w) return i;
    point -= w;
  }
  // Floating-point rest: the last positive weight.
  for (let i = weights.length - 1; i >= 0; i -= 1) if ((weights[i] ?? 0) > 0) return i;
  return -1;
}

/** How many recent undo entries recency weighting looks at (as the original). */
export const RECENT_OPERATIONS = 10;

/** The URIs one history entry touched (its inverse operation names them). */
function urisOf(entry: OperationHistoryEntry): string[] {
  const op = entry.operation;
  switch (op.type) {
    case 'property':
      return [op.uri];
    case 'splice':
      return [op.location.uri];
    case 'aspect.create':
    case 'aspect.remove':
      return [`/${op.name}`];
    case 'relationship':
      return [op.source, op.target];
  }
}

/**
 * Down-weights what was worked on recently so that autonomous goals spread over the repository: a URI touched c times
 * in the last 10 operations weighs 1/(1 + 0.5c); an element blends its own weight (70 %) with its aspect's (30 %).
 */
export class RecencyWeighter {
  private readonly counts = new Map<string, number>();

  constructor(history: readonly OperationHistoryEntry[]) {
    for (const entry of history.slice(0, RECENT_OPERATIONS))
      for (const uri of urisOf(entry)) this.counts.set(uri, (this.counts.get(uri) ?? 0) + 1);
  }

  weightOf(uri: string): number {
    return 1 / (1 + 0.5 * (this.counts.get(uri) ?? 0));
  }

  aspectWeight(aspect: string): number {
    return this.weightOf(`/${aspect}`);
  }

  elementWeight(uri: string, aspect: string): number {
    return 0.7 * this.weightOf(uri) + 0.3 * this.aspectWeight(aspect);
  }
}
