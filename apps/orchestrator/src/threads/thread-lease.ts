import { randomBytes } from 'node:crypto';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { Buckets, KvKeys } from '@novelrag/contracts';
import { z } from 'zod';

/**
 * Serialises the goals of a thread across orchestrator instances.
 *
 * One KV record per thread (bucket `thread-leases`): the `holder` (goal, owner token, last renewal) and the `waiting`
 * goals with their GOALS stream sequence. A goal may take the thread when there is no live holder and no live waiter
 * with a smaller stream sequence, so goals of one thread run in submission order whichever instance pulled them. Every
 * change is a compare-and-swap on the record's revision, so two instances can never both win.
 *
 * Liveness without server-side TTLs (NATS 2.9 has no per-key TTL): the holder renews every third of `leaseMs`; a holder
 * or waiter not seen for `leaseMs` is considered dead and ignored/pruned, so a crashed instance delays its thread by at
 * most `leaseMs`. A holder that finds its lease taken over (it was paused longer than the lease) is told so and must
 * stop. The bucket's max age (long compared to the lease) removes records of threads nobody touches any more.
 */
const Holder = z.object({
  goalId: z.string(),
  owner: z.string(),
  seq: z.number(),
  renewedAt: z.number(),
});
const Waiter = z.object({ goalId: z.string(), owner: z.string(), seq: z.number(), seenAt: z.number() });
const LeaseRecord = z.object({ holder: Holder.nullable(), waiting: z.array(Waiter) });
type LeaseRecord = z.infer<typeof LeaseRecord>;

export interface ThreadLeaseOptions {
  readonly leaseMs: number;
  /** How often a waiter re-reads the record (default leaseMs / 10, at least 100 ms). */
  readonly pollMs?: number;
  readonly now?: () => number;
}

export interface AcquireRequest {
  readonly threadId: string;
  readonly goalId: string;
  /** GOALS stream sequence of the goal (its place in the thread's queue). */
  readonly seq: number;
  /** Give up after this long (the caller hands the goal back to the queue). */
  readonly maxWaitMs: number;
  readonly signal?: AbortSignal;
  /** Called on every poll while waiting (the caller keeps the JetStream message alive). */
  readonly onWait?: () => void;
}

/** A held thread. `lost` aborts when the lease was taken over; `release` hands the thread to the next goal. */
export interface HeldThread {
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export class ThreadLeases {
  private readonly now: () => number;
  private readonly pollMs: number;

  private constructor(
    private readonly kv: KV,
    private readonly options: ThreadLeaseOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.pollMs = options.pollMs ?? Math.max(100, Math.floor(options.leaseMs / 10));
  }

  static async open(
    nc: NatsConnection,
    options: ThreadLeaseOptions,
    bucket: string = Buckets.threadLeases,
  ): Promise<ThreadLeases> {
    const ttl = Math.max(60 * 60_000, options.leaseMs * 20);
    return new ThreadLeases(await new Kvm(nc).create(bucket, { history: 1, ttl }), options);
  }

  /** Waits (bounded) for the thread; null when `maxWaitMs` passed or `signal` aborted first. */
  async acquire(req: AcquireRequest): Promise<HeldThread | null> {
    const owner = `${req.goalId}:${randomBytes(6).toString('hex')}`;
    const key = KvKeys.thread(req.threadId);
    const giveUpAt = this.now() + req.maxWaitMs;
    for (;;) {
      if (req.signal?.aborted) return null;
      const { record, revision } = await this.read(key);
      const now = this.now();
      const live = this.prune(record, now);
      const ahead = live.waiting.some((w) => w.seq < req.seq && w.goalId !== req.goalId);
      let next: LeaseRecord | null = null;
      if (live.holder === null && !ahead) {
        next = {
          holder: { goalId: req.goalId, owner, seq: req.seq, renewedAt: now },
          waiting: live.waiting.filter((w) => w.owner !== owner && w.goalId !== req.goalId),
        };
        if (await this.write(key, next, revision)) return this.held(key, owner);
        continue; // someone else changed it first: look again
      }
      if (now >= giveUpAt) {
        // Keep the place in the queue: the goal comes back after a short delay and the entry expires otherwise.
        return null;
      }
      const mine = live.waiting.find((w) => w.owner === owner);
      if (!mine || now - mine.seenAt > this.options.leaseMs / 3 || live !== record) {
        next = {
          holder: live.holder,
          waiting: [
            ...live.waiting.filter((w) => w.owner !== owner && w.goalId !== req.goalId),
            { goalId: req.goalId, owner, seq: req.seq, seenAt: now },
          ].sort((a, b) => a.seq - b.seq),
        };
        if (!(await this.write(key, next, revision))) continue;
      }
      req.onWait?.();
      await delay(Math.min(this.pollMs, Math.max(0, giveUpAt - now)), req.signal);
    }
  }

  private held(key: string, owner: string): HeldThread {
    const lost = new AbortController();
    const renewEvery = Math.max(100, Math.floor(this.options.leaseMs / 3));
    let released = false;
    const renew = async () => {
      const { record, revision } = await this.read(key);
      if (record.holder?.owner !== owner) {
        lost.abort(new Error('thread lease lost'));
        return;
      }
      await this.write(key, { ...record, holder: { ...record.holder, renewedAt: this.now() } }, revision);
    };
    const timer = setInterval(() => {
      if (!released) void renew().catch(() => undefined); // a missed renewal is retried on the next tick
    }, renewEvery);
    timer.unref();
    return {
      lost: lost.signal,
      release: async () => {
        released = true;
        clearInterval(timer);
        for (let attempt = 0; attempt < 5; attempt++) {
          const { record, revision } = await this.read(key);
          if (record.holder?.owner !== owner) return;
          if (await this.write(key, { ...record, holder: null }, revision)) return;
        }
      },
    };
  }

  /** Drops a dead holder and dead waiters; returns the same object when nothing was dropped. */
  private prune(record: LeaseRecord, now: number): LeaseRecord {
    const alive = (t: number) => now - t <= this.options.leaseMs;
    const holder = record.holder && alive(record.holder.renewedAt) ? record.holder : null;
    const waiting = record.waiting.filter((w) => alive(w.seenAt));
    if (holder === record.holder && waiting.length === record.waiting.length) return record;
    return { holder, waiting };
  }

  private async read(key: string): Promise<{ record: LeaseRecord; revision: number | undefined }> {
    const entry = await this.kv.get(key);
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) {
      return { record: { holder: null, waiting: [] }, revision: entry?.revision };
    }
    const parsed = LeaseRecord.safeParse(entry.json<unknown>());
    return {
      record: parsed.success ? parsed.data : { holder: null, waiting: [] },
      revision: entry.revision,
    };
  }

  /** CAS write; false on a lost race. */
  private async write(key: string, record: LeaseRecord, revision: number | undefined): Promise<boolean> {
    try {
      const data = JSON.stringify(record);
      if (revision === undefined) await this.kv.create(key, data);
      else await this.kv.update(key, data, revision);
      return true;
    } catch (err) {
      if (err instanceof Error && /wrong last sequence|key exists/i.test(err.message)) return false;
      throw err;
    }
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
