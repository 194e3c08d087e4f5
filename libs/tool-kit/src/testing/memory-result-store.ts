import { BucketTtls, type ToolClaim, type ToolResultRecord } from '@novelrag/contracts';
import { type StoredState, type ToolResultStore, classifyStored } from '../result-store';

interface Entry {
  readonly value: string;
  readonly revision: number;
  readonly writtenAt: number;
}

export interface InMemoryToolResultStoreOptions {
  /** How long a value lives after its last write (default: the `tool-results` bucket's). */
  readonly ttlMs?: number;
  /** The clock expiry is measured on (tests pass a manual one). */
  readonly now?: () => number;
}

/**
 * The ToolResultStore in memory: the KV store's guarantees (create-if-absent claims, compare-and-swap by revision,
 * values expiring `ttlMs` after their last write, one revision counter for all keys), nothing persisted.
 */
export class InMemoryToolResultStore implements ToolResultStore {
  private readonly entries = new Map<string, Entry>();
  private lastRevision = 0;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: InMemoryToolResultStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? BucketTtls.toolResultsMs;
    this.now = options.now ?? Date.now;
  }

  async read(invocationId: string): Promise<StoredState> {
    const entry = this.live(invocationId);
    if (!entry) return { kind: 'none' };
    let raw: unknown;
    try {
      raw = JSON.parse(entry.value);
    } catch {
      return { kind: 'unreadable', revision: entry.revision };
    }
    return classifyStored(raw, entry.revision);
  }

  async claim(claim: ToolClaim): Promise<number | null> {
    if (this.live(claim.invocationId)) return null;
    return this.write(claim.invocationId, JSON.stringify(claim));
  }

  async swap(claim: ToolClaim, revision: number): Promise<number | null> {
    if (this.live(claim.invocationId)?.revision !== revision) return null;
    return this.write(claim.invocationId, JSON.stringify(claim));
  }

  async record(record: ToolResultRecord): Promise<void> {
    this.write(record.invocationId, JSON.stringify(record));
  }

  async recordOverClaim(record: ToolResultRecord, claimRevision: number): Promise<boolean> {
    if (this.live(record.invocationId)?.revision !== claimRevision) return false;
    this.write(record.invocationId, JSON.stringify(record));
    return true;
  }

  async release(invocationId: string, revision: number): Promise<void> {
    if (this.live(invocationId)?.revision === revision) this.entries.delete(invocationId);
  }

  /** Stores a raw value as it is (tests of values another version wrote). */
  putRaw(invocationId: string, value: string): void {
    this.write(invocationId, value);
  }

  /** The entry when it has not expired; an expired one is dropped. */
  private live(invocationId: string): Entry | undefined {
    const entry = this.entries.get(invocationId);
    if (entry && this.now() - entry.writtenAt >= this.ttlMs) {
      this.entries.delete(invocationId);
      return undefined;
    }
    return entry;
  }

  private write(invocationId: string, value: string): number {
    this.lastRevision += 1;
    this.entries.set(invocationId, { value, revision: this.lastRevision, writtenAt: this.now() });
    return this.lastRevision;
  }
}
