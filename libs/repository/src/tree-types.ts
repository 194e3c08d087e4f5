import type { Aspect, AspectRecord, ElementRecord } from './model';
import type { Operation, ReversibleAction } from './operations';

// The tree's public types: what a write changed and returned, lookups and snapshots.

/** What one write changed, so the repository knows which records to persist and re-index. */
export interface TreeChanges {
  /** Records created or modified (copies, as they were right after the write). */
  readonly upserted: ElementRecord[];
  /** URIs of records that no longer exist. */
  readonly deleted: string[];
  /** True when the aspect list or an aspect's root list changed. */
  readonly aspectsChanged: boolean;
  /** A splice of an aspect's root list: the aspect, and how many ids it kept at the start and at the end. */
  readonly roots?: { readonly aspect: string; readonly head: number; readonly tail: number };
}

export interface ApplyResult {
  /** The operation that restores the previous state exactly. */
  readonly inverse: Operation;
  readonly changed: TreeChanges;
}

export interface ExecuteResult {
  /** The action that restores the previous state exactly. */
  readonly inverse: ReversibleAction;
  readonly changed: TreeChanges;
}

export type FindResult =
  | { readonly kind: 'root'; readonly aspects: Aspect[] }
  | { readonly kind: 'aspect'; readonly aspect: Aspect; readonly rootIds: string[] }
  | { readonly kind: 'element'; readonly record: ElementRecord };

export interface TreeSnapshot {
  /** In aspect order. */
  readonly aspects: AspectRecord[];
  /** Pre-order (aspect by aspect, each element before its children). */
  readonly records: ElementRecord[];
}
