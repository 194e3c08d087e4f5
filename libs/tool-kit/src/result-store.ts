import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { BucketTtls, Buckets, KvKeys, ToolClaim, ToolResultRecord } from '@novelrag/contracts';
import { type InvocationNotes, KvInvocationNotes } from './invocation-notes';

/** Re-exported: the tool kit writes claims, the orchestrator reads them (the schema lives in the contracts). */
export { ToolClaim };

export type StoredState =
  | { readonly kind: 'none' }
  | { readonly kind: 'done'; readonly record: ToolResultRecord }
  | { readonly kind: 'claimed'; readonly claim: ToolClaim; readonly revision: number }
  /** A value that is neither a result nor a claim (another version wrote it, or a record broke its contract). */
  | { readonly kind: 'unreadable'; readonly revision: number };

/**
 * Tool results and in-flight claims by invocation id: at most one runner runs an invocation at a time, and an
 * invocation has at most one result. Values expire a fixed time (the store's TTL) after their last write, so a
 * result is replayed to a repeated call for that long and no longer. Store failures reject; races never do:
 *
 * - `read` answers what the key holds: nothing (or expired), a result, a claim with its revision, or an unreadable
 *   value with its revision (only a compare-and-swap can replace it; `claim` would fail).
 * - `claim` is create-if-absent: the claim's revision, or null when the key holds anything.
 * - `swap` replaces the value at `revision` (take-over of an expired claim, or lease renewal): the new revision, or
 *   null when it changed meanwhile.
 * - `record` writes a result whatever the key holds.
 * - `recordOverClaim` replaces this runner's claim (at `claimRevision`) with its result: false when the claim changed
 *   hands meanwhile (another runner took the invocation over and owns its result), so a stalled runner never
 *   overwrites the result of the one that took over (fencing by revision).
 * - `release` drops a claim at `revision` (the runner gave the invocation back before running it); a no-op when the
 *   key changed meanwhile, and it never fails.
 */
export interface ToolResultStore {
  read(invocationId: string): Promise<StoredState>;
  claim(claim: ToolClaim): Promise<number | null>;
  swap(claim: ToolClaim, revision: number): Promise<number | null>;
  record(record: ToolResultRecord): Promise<void>;
  recordOverClaim(record: ToolResultRecord, claimRevision: number): Promise<boolean>;
  release(invocationId: string, revision: number): Promise<void>;
}

/** What a stored value is: a result, a claim, or neither (shared by every ToolResultStore implementation). */
export function classifyStored(raw: unknown, revision: number): StoredState {
  const done = ToolResultRecord.safeParse(raw);
  if (done.success) return { kind: 'done', record: done.data };
  const claim = ToolClaim.safeParse(raw);
  if (claim.success) return { kind: 'claimed', claim: claim.data, revision };
  return { kind: 'unreadable', revision };
}

export interface ToolResultStoreOptions {
  readonly bucket?: string;
  readonly ttlMs?: number;
}

/** The ToolResultStore over the JetStream KV bucket `tool-results` (the TTL is the bucket's max age). */
export class KvToolResultStore implements ToolResultStore {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, options: ToolResultStoreOptions = {}): Promise<KvToolResultStore> {
    const kv = await new Kvm(nc).create(options.bucket ?? Buckets.toolResults, {
      history: 1,
      ttl: options.ttlMs ?? BucketTtls.toolResultsMs,
    });
    return new KvToolResultStore(kv);
  }

  /** The invocations' notes, in the same bucket (so they live as long as the results). */
  notes(): InvocationNotes {
    return new KvInvocationNotes(this.kv);
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
    return classifyStored(raw, entry.revision);
  }

  async claim(claim: ToolClaim): Promise<number | null> {
    try {
      return await this.kv.create(KvKeys.toolResult(claim.invocationId), JSON.stringify(claim));
    } catch (err) {
      if (isWrongSequence(err)) return null;
      throw err;
    }
  }

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

  async recordOverClaim(record: ToolResultRecord, claimRevision: number): Promise<boolean> {
    try {
      await this.kv.update(KvKeys.toolResult(record.invocationId), JSON.stringify(record), claimRevision);
      return true;
    } catch (err) {
      if (isWrongSequence(err)) return false;
      throw err;
    }
  }

  async release(invocationId: string, revision: number): Promise<void> {
    await this.kv.delete(KvKeys.toolResult(invocationId), { previousSeq: revision }).catch(() => undefined);
  }
}

function isWrongSequence(err: unknown): boolean {
  const text =
    err instanceof Error ? `${err.message} ${String((err as { code?: unknown }).code ?? '')}` : String(err);
  return /wrong last sequence|key exists|10071/i.test(text);
}
