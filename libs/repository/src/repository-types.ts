import type { AppliedKeysOptions } from './applied-keys';
import type { JsonObject, JsonValue } from './json';
import type { Operation, ReversibleAction } from './operations';

// The repository's public types: options, outcomes of writes, change events and search results.

export type ChangeCause = 'apply' | 'relationships' | 'aspect_added' | 'aspect_removed' | 'undo' | 'redo';

/** Emitted after each committed write. */
export interface ChangeEvent {
  readonly uris: string[];
  readonly cause: ChangeCause;
}

export interface WriteOptions {
  /** Undo group: writes sharing a group are undone together. Multi-op applies get a fresh group when absent. */
  readonly group?: string;
}

export interface ApplyOutcome {
  /** The inverse of each applied operation, in application order (apply them reversed to undo by hand). */
  readonly inverses: Operation[];
  readonly group: string | null;
  readonly uris: string[];
}

export interface ExecuteOutcome {
  /** The inverse of each action, in application order. */
  readonly inverses: ReversibleAction[];
  readonly group: string | null;
  readonly uris: string[];
}

/** Makes `executeOnce` idempotent. */
export interface Idempotency<R> {
  /** The caller's key (tool-runners use the invocation id): a second write with it is answered, not applied. */
  readonly key: string;
  /**
   * Builds the reply to remember for the key, from the outcome; it runs inside the write (the tree is in its new
   * state) and must return JSON-serialisable data. It is persisted with the write.
   */
  readonly reply: (outcome: ExecuteOutcome) => R;
}

/** What `executeOnce` did: applied now (with the reply it built), or answered with the reply remembered for the key. */
export type OnceResult<R> =
  | { readonly replayed: false; readonly reply: R; readonly outcome: ExecuteOutcome }
  /** The remembered reply as stored (JSON): callers parse it like any persisted data. */
  | { readonly replayed: true; readonly reply: JsonValue };

export interface UndoRedoOutcome {
  readonly action: 'undo' | 'redo';
  /** False when the stack was empty. */
  readonly performed: boolean;
  readonly count: number;
  readonly descriptions: string[];
  readonly message: string;
  /** Every URI the replayed actions touched. */
  readonly uris: string[];
}

export interface SearchResult {
  readonly uri: string;
  readonly score: number;
  /** The element's contextView. */
  readonly element: JsonObject;
}

export interface RepositoryOptions {
  readonly undoCap?: number;
  /** Bounds of the applied idempotency keys (see `AppliedKeys`; defaults: 1000 keys, 24 h, 2 MiB of replies). */
  readonly appliedKeys?: Omit<AppliedKeysOptions, 'clock'>;
  readonly clock?: () => Date;
  readonly newId?: () => string;
  /**
   * Progress of long work when the repository opens (re-embedding stale elements, e.g. every element after an
   * embedding model change): one message per batch. Messages hold counts only, no content.
   */
  readonly log?: (message: string) => void;
  /** Elements embedded per call when re-embedding on open (default 256). */
  readonly reembedBatch?: number;
}
