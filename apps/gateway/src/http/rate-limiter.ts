import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { type ContextLogger, isWrongSequence } from '@novelrag/bus';
import { Buckets } from '@novelrag/contracts';
import { z } from 'zod';

/** What one request costs its principal: allowed or not, and what the `RateLimit-*` headers say. */
export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Until the window ends (and the budget is whole again). */
  readonly resetMs: number;
}

export interface RateLimiter {
  take(principal: string): Promise<RateDecision>;
}

export interface RateLimitOptions {
  /** Requests per window and principal. */
  readonly limit: number;
  readonly windowMs: number;
}

/** A principal's window: when its first request came and how many were counted since. */
const Window = z.object({ start: z.number().int().nonnegative(), count: z.number().int().nonnegative() });
type Window = z.infer<typeof Window>;

/** Counts one request against `current`; `next` is what to store, absent when the request is refused (no change). */
function step(current: Window | undefined, now: number, options: RateLimitOptions) {
  const live =
    current && now >= current.start && now - current.start < options.windowMs ? current : undefined;
  const window = live ?? { start: now, count: 0 };
  const resetMs = Math.max(1, window.start + options.windowMs - now);
  if (window.count >= options.limit) {
    return { decision: { allowed: false, limit: options.limit, remaining: 0, resetMs } };
  }
  const next = { start: window.start, count: window.count + 1 };
  const remaining = options.limit - next.count;
  return { next, decision: { allowed: true, limit: options.limit, remaining, resetMs } };
}

/** One process's windows (the fallback while the shared store cannot be reached). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly options: RateLimitOptions) {}

  take(principal: string): Promise<RateDecision> {
    const { next, decision } = step(this.windows.get(principal), Date.now(), this.options);
    if (next) {
      this.windows.delete(principal); // re-inserted last: the map's first key is the least recently counted
      this.windows.set(principal, next);
      if (this.windows.size > 10_000) this.windows.delete(this.windows.keys().next().value as string);
    }
    return Promise.resolve(decision);
  }
}

const CAS_ATTEMPTS = 8;

/**
 * Windows kept in the `rate-limits` KV bucket, so every gateway instance counts the same requests. Each request reads
 * the principal's window and writes it back on its revision (CAS; a conflict re-reads, bounded). Keys expire with the
 * bucket's age limit (two windows). When the bucket cannot be reached, this process counts alone (and logs it)
 * rather than refusing every request or letting every request through.
 */
export class KvRateLimiter implements RateLimiter {
  private kv: Promise<KV> | undefined;
  private readonly fallback: MemoryRateLimiter;
  private degraded = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: RateLimitOptions & { readonly timeoutMs?: number; readonly bucket?: string },
    private readonly logger: ContextLogger,
  ) {
    this.fallback = new MemoryRateLimiter(options);
  }

  async take(principal: string): Promise<RateDecision> {
    try {
      const decision = await this.takeShared(principal);
      if (this.degraded) this.logger.info('rate limits are shared again');
      this.degraded = false;
      return decision;
    } catch (err) {
      this.kv = undefined;
      if (!this.degraded) {
        this.logger.warn('rate-limit bucket unreachable: counting in this instance only', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
      this.degraded = true;
      return this.fallback.take(principal);
    }
  }

  private bucket(): Promise<KV> {
    this.kv ??= new Kvm(jetstream(this.nc, { timeout: this.options.timeoutMs ?? 2_000 })).create(
      this.options.bucket ?? Buckets.rateLimits,
      { history: 1, ttl: 2 * this.options.windowMs, storage: 'memory' },
    );
    return this.kv;
  }

  private async takeShared(principal: string): Promise<RateDecision> {
    const kv = await this.bucket();
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await kv.get(principal);
      const parsed = entry?.operation === 'PUT' ? Window.safeParse(safeJson(entry.string())) : undefined;
      const { next, decision } = step(parsed?.success ? parsed.data : undefined, Date.now(), this.options);
      if (!next) return decision;
      try {
        if (entry) await kv.update(principal, JSON.stringify(next), entry.revision);
        else await kv.create(principal, JSON.stringify(next));
        return decision;
      } catch (err) {
        if (!isWrongSequence(err)) throw err;
      }
    }
    throw new Error(`rate-limit window of one principal still contended after ${CAS_ATTEMPTS} attempts`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
