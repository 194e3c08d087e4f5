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
/** Principals whose last stored window this process remembers (the least recently counted is forgotten first). */
const KNOWN_WINDOWS = 10_000;

/** A principal's window as this process last read or wrote it, with its KV revision (0: no entry). */
interface Stored {
  readonly window: Window | undefined;
  readonly revision: number;
  /** Counts this process reserved in that window beyond its requests so far: `next` … `last` are its own to hand out. */
  spare?: { next: number; readonly last: number };
}

/**
 * Counts reserved per write beyond the requests being counted: 1 % of the limit, so a busy principal costs one write
 * per ~1 % of its budget instead of one per request or burst. What another instance cannot use meanwhile is bounded by
 * that 1 % per instance (it is spent by the end of the window at the latest); under 100 requests a window nothing is
 * reserved and every request is counted in the shared window as it comes.
 */
const spareOf = (limit: number) => Math.floor(limit / 100);

interface Waiter {
  readonly resolve: (decision: RateDecision) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Windows kept in the `rate-limits` KV bucket, so every gateway instance counts the same requests. A principal's
 * requests arriving while its previous write is in flight are counted together in one compare-and-swap write (a
 * burst of 16 costs one or two round trips, not 16 contending read-and-writes), on the revision this process last
 * wrote; only a conflict (another instance counted meanwhile) re-reads the window, bounded. Each write also reserves
 * 1 % of the limit for this process (`spareOf`), which its next requests take without a write. Keys expire with the
 * bucket's age limit (two windows). When the bucket cannot be reached, this process counts alone (and logs it) rather
 * than refusing every request or letting every request through.
 */
export class KvRateLimiter implements RateLimiter {
  private kv: Promise<KV> | undefined;
  private readonly fallback: MemoryRateLimiter;
  private degraded = false;
  private readonly queues = new Map<string, Waiter[]>();
  private readonly known = new Map<string, Stored>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: RateLimitOptions & { readonly timeoutMs?: number; readonly bucket?: string },
    private readonly logger: ContextLogger,
  ) {
    this.fallback = new MemoryRateLimiter(options);
  }

  take(principal: string): Promise<RateDecision> {
    const reserved = this.queues.has(principal) ? undefined : this.takeReserved(principal);
    if (reserved) return Promise.resolve(reserved);
    return new Promise<RateDecision>((resolve, reject) => {
      const queue = this.queues.get(principal);
      if (queue) return void queue.push({ resolve, reject });
      this.queues.set(principal, [{ resolve, reject }]);
      void this.drain(principal);
    }).catch((err: unknown) => this.degrade(principal, err));
  }

  /**
   * Counts the principal's queued requests lot by lot until none is left: first from the counts this process reserved,
   * the rest in one write.
   */
  private async drain(principal: string): Promise<void> {
    for (;;) {
      const lot = this.queues.get(principal)?.splice(0) ?? [];
      while (lot.length > 0) {
        const reserved = this.takeReserved(principal);
        if (!reserved) break;
        (lot.shift() as Waiter).resolve(reserved);
      }
      if (lot.length === 0) {
        this.queues.delete(principal);
        return;
      }
      try {
        const decisions = await this.takeShared(principal, lot.length);
        if (this.degraded) this.logger.info('rate limits are shared again');
        this.degraded = false;
        lot.forEach((waiter, i) => waiter.resolve(decisions[i] as RateDecision));
      } catch (err) {
        for (const waiter of lot) waiter.reject(err);
      }
    }
  }

  /** The decision of one request counted from this process's reserved counts, while its window lasts. */
  private takeReserved(principal: string): RateDecision | undefined {
    const stored = this.known.get(principal);
    const spare = stored?.spare;
    const window = stored?.window;
    const now = Date.now();
    if (!spare || !window || spare.next > spare.last) return undefined;
    if (now < window.start || now - window.start >= this.options.windowMs) return undefined;
    const count = spare.next++;
    const { limit, windowMs } = this.options;
    return {
      allowed: true,
      limit,
      remaining: limit - count,
      resetMs: Math.max(1, window.start + windowMs - now),
    };
  }

  private degrade(principal: string, err: unknown): Promise<RateDecision> {
    this.kv = undefined;
    this.known.delete(principal);
    if (!this.degraded) {
      this.logger.warn('rate-limit bucket unreachable: counting in this instance only', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    this.degraded = true;
    return this.fallback.take(principal);
  }

  private bucket(): Promise<KV> {
    this.kv ??= new Kvm(jetstream(this.nc, { timeout: this.options.timeoutMs ?? 2_000 })).create(
      this.options.bucket ?? Buckets.rateLimits,
      { history: 1, ttl: 2 * this.options.windowMs, storage: 'memory' },
    );
    return this.kv;
  }

  /** Counts `n` requests of `principal` in one write; their decisions in order. */
  private async takeShared(principal: string, n: number): Promise<RateDecision[]> {
    const kv = await this.bucket();
    let stored = this.known.get(principal);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      stored ??= await read(kv, principal);
      const now = Date.now();
      const decisions: RateDecision[] = [];
      let window = stored.window;
      let changed = false;
      for (let i = 0; i < n; i++) {
        const { next, decision } = step(window, now, this.options);
        decisions.push(decision);
        if (next) [window, changed] = [next, true];
      }
      if (!changed || !window) return decisions;
      const counted = window.count;
      const reserve = Math.min(spareOf(this.options.limit), this.options.limit - counted);
      const written = { start: window.start, count: counted + reserve };
      try {
        const data = JSON.stringify(written);
        const revision =
          stored.revision > 0
            ? await kv.update(principal, data, stored.revision)
            : await kv.create(principal, data);
        const spare = reserve > 0 ? { next: counted + 1, last: counted + reserve } : undefined;
        this.remember(principal, { window: written, revision, ...(spare ? { spare } : {}) });
        return decisions;
      } catch (err) {
        if (!isWrongSequence(err)) throw err;
        this.known.delete(principal);
        stored = undefined; // another instance counted meanwhile: read its window
      }
    }
    throw new Error(`rate-limit window of one principal still contended after ${CAS_ATTEMPTS} attempts`);
  }

  private remember(principal: string, stored: Stored): void {
    this.known.delete(principal); // re-inserted last: the map's first key is the least recently counted
    this.known.set(principal, stored);
    if (this.known.size > KNOWN_WINDOWS) this.known.delete(this.known.keys().next().value as string);
  }
}

/** The principal's stored window and revision (an entry that is no window counts as none, on its revision). */
async function read(kv: KV, principal: string): Promise<Stored> {
  const entry = await kv.get(principal);
  if (!entry) return { window: undefined, revision: 0 };
  const parsed = entry.operation === 'PUT' ? Window.safeParse(safeJson(entry.string())) : undefined;
  return { window: parsed?.success ? parsed.data : undefined, revision: entry.revision };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
