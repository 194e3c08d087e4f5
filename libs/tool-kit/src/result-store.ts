import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { BucketTtls, Buckets, KvKeys, ToolClaim, ToolResultRecord } from '@novelrag/contracts';

/** Re-exported: the tool kit writes claims, the orchestrator reads them (the schema lives in the contracts). */
export { ToolClaim };

export type StoredState =
  | { readonly kind: 'none' }
  | { readonly kind: 'done'; readonly record: ToolResultRecord }
  | { readonly kind: 'claimed'; readonly claim: ToolClaim; readonly revision: number }
  /** A value that is neither a result nor a claim (another version wrote it, or a record broke its contract). */
  | { readonly kind: 'unreadable'; readonly revision: number };

export interface ToolResultStoreOptions {
  readonly bucket?: string;
  readonly ttlMs?: number;
}

/** Tool results and in-flight claims by invocation id, in the JetStream KV bucket `tool-results` (bucket-wide TTL). */
export class ToolResultStore {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, options: ToolResultStoreOptions = {}): Promise<ToolResultStore> {
    const kv = await new Kvm(nc).create(options.bucket ?? Buckets.toolResults, {
      history: 1,
      ttl: options.ttlMs ?? BucketTtls.toolResultsMs,
    });
    return new ToolResultStore(kv);
  }

  async read(invocationId: string): Promise<StoredState> {
    const entry = await this.kv.get(KvKeys.toolResult(invocationId));
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return { kind: 'none' };
    let raw: unknown;
    try {
      raw = entry.json();
    } catch {
      return { kind: 'unreadable', revision: entry.revision };
    }
    const done = ToolResultRecord.safeParse(raw);
    if (done.success) return { kind: 'done', record: done.data };
    const claim = ToolClaim.safeParse(raw);
    if (claim.success) return { kind: 'claimed', claim: claim.data, revision: entry.revision };
    // Reported with its revision: the key exists, so only a compare-and-swap can replace it (`claim` would fail).
    return { kind: 'unreadable', revision: entry.revision };
  }

  /** Claims a fresh invocation; null when someone else holds the key already. */
  async claim(claim: ToolClaim): Promise<number | null> {
    try {
      return await this.kv.create(KvKeys.toolResult(claim.invocationId), JSON.stringify(claim));
    } catch (err) {
      if (isWrongSequence(err)) return null;
      throw err;
    }
  }

  /** Replaces the value at `revision` (take-over of an expired claim, or lease renewal); null when it changed. */
  async swap(claim: ToolClaim, revision: number): Promise<number | null> {
    try {
      return await this.kv.update(KvKeys.toolResult(claim.invocationId), JSON.stringify(claim), revision);
    } catch (err) {
      if (isWrongSequence(err)) return null;
      throw err;
    }
  }

  async record(record: ToolResultRecord): Promise<void> {
    await this.kv.put(KvKeys.toolResult(record.invocationId), JSON.stringify(record));
  }

  /**
   * Replaces this runner's claim (at `claimRevision`) with its result; false when the claim changed hands meanwhile
   * (another runner took the invocation over and owns its result).
   */
  async recordOverClaim(record: ToolResultRecord, claimRevision: number): Promise<boolean> {
    try {
      await this.kv.update(KvKeys.toolResult(record.invocationId), JSON.stringify(record), claimRevision);
      return true;
    } catch (err) {
      if (isWrongSequence(err)) return false;
      throw err;
    }
  }

  /** Drops a claim (the runner gave the invocation back before running it). */
  async release(invocationId: string, revision: number): Promise<void> {
    await this.kv.delete(KvKeys.toolResult(invocationId), { previousSeq: revision }).catch(() => undefined);
  }
}

function isWrongSequence(err: unknown): boolean {
  const text =
    err instanceof Error ? `${err.message} ${String((err as { code?: unknown }).code ?? '')}` : String(err);
  return /wrong last sequence|key exists|10071/i.test(text);
}
