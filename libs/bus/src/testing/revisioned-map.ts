/** A stored value and the revision it was written at. */
export interface Revisioned {
  readonly value: string;
  readonly revision: number;
}

/**
 * Keys to string values with compare-and-swap revisions, the way a JetStream KV bucket keeps them: one revision
 * counter for the whole map (so a rewrite of a deleted key never reuses a revision), `create` only when the key is
 * absent, `update` only at the current revision. Values are strings so callers store what they would serialise.
 * The in-memory store twins are built on it.
 */
export class RevisionedMap {
  private readonly entries = new Map<string, Revisioned>();
  private lastRevision = 0;

  get(key: string): Revisioned | undefined {
    return this.entries.get(key);
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** The new revision, or null when the key exists. */
  create(key: string, value: string): number | null {
    if (this.entries.has(key)) return null;
    return this.write(key, value);
  }

  /** The new revision, or null when the key is missing or not at `revision`. */
  update(key: string, value: string, revision: number): number | null {
    if (this.entries.get(key)?.revision !== revision) return null;
    return this.write(key, value);
  }

  /** Writes whatever is there. */
  put(key: string, value: string): number {
    return this.write(key, value);
  }

  /** Removes the key (only at `revision` when one is given); false when that revision no longer holds. */
  delete(key: string, revision?: number): boolean {
    if (revision !== undefined && this.entries.get(key)?.revision !== revision) return false;
    this.entries.delete(key);
    return true;
  }

  private write(key: string, value: string): number {
    this.lastRevision += 1;
    this.entries.set(key, { value, revision: this.lastRevision });
    return this.lastRevision;
  }
}
