import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { Buckets, KvKeys, ToolClaim, ToolResultRecord } from '@novelrag/contracts';

/** A claim whose runner stopped renewing it: nobody is running the invocation any more. */
export interface StoppedRunner {
  readonly kind: 'stale-claim';
  readonly runner: string;
  readonly leaseUntil: number;
  /** KV revision of the stale claim (a later attempt ignores this one: its runner may be about to take it over). */
  readonly revision: number;
}

/** A tool that writes no claims, none of whose services has answered a ping for longer than the grace. */
export interface GoneTool {
  readonly kind: 'tool-gone';
  readonly tool: string;
  /** Since when (epoch ms) no instance answered. */
  readonly goneSince: number;
}

/**
 * A call whose result is recorded, but whose reply did not come within the grace: the instance that held this request
 * is gone (e.g. a runner that only waited for another runner's claim, and died), so the reply never will. Sent again
 * with the same invocation id, the call is answered with the recorded result (it does not run again).
 */
export interface UnsentResult {
  readonly kind: 'result-unsent';
  /** Since when (epoch ms) this watch saw the result recorded. */
  readonly recordedSince: number;
}

/**
 * A call of a tool whose runners claim every call before running it, with still no claim after the grace: it reached
 * nobody that runs it (e.g. a runner killed as the call arrived). Sent again with the same invocation id, it runs once:
 * should the first runner still claim it, the `create` of the claim lets only one of them run it.
 */
export interface UnclaimedCall {
  readonly kind: 'unclaimed';
  /** Since when (epoch ms) this watch saw no entry. */
  readonly unclaimedSince: number;
}

/** Why a pending call is given up before its timeout. */
export type Abandonment = StoppedRunner | GoneTool | UnsentResult | UnclaimedCall;

export interface ClaimWatchOptions {
  /** How long past its `leaseUntil` a claim is still trusted, for clock skew between processes. Default 2 s. */
  readonly graceMs?: number;
  /** Longest pause between two reads of the entry. Default 1 s. */
  readonly pollMs?: number;
  /** The bucket of a tool without `bucketOf` (or for which it has no answer); default `tool-results`. */
  readonly bucket?: string;
  /**
   * The bucket where the principal that owns `tool` records its claims (see `toolResultsBucket`): only that bucket is
   * read, so no other principal's entry is ever taken for the tool's claim.
   */
  readonly bucketOf?: (tool: string) => string | undefined;
  readonly now?: () => number;
  /**
   * For tools that write no claim (third-party tools on the raw contract): whether any instance still serves the tool
   * (true), none does (false) or it cannot be told (undefined). Without it such a call waits for its timeout.
   */
  readonly served?: (tool: string) => Promise<boolean | undefined>;
  /** Whether every runner of `tool` claims a call before running it (see UnclaimedCall); default: none does. */
  readonly claimsExpected?: (tool: string) => boolean;
}

export interface WatchOptions {
  /** Ends the watch (the request settled); the watch then resolves `undefined`. */
  readonly signal: AbortSignal;
  /** Revisions of stale claims already acted upon for this invocation. */
  readonly ignore?: ReadonlySet<number>;
  /** The invoked tool, for the `served` check while the invocation has no claim. */
  readonly tool?: string;
  /** How long (ms) the caller already waited since the call was sent: that much less of the first pause is left. */
  readonly waited?: number;
}

const MIN_PAUSE_MS = 20;

/**
 * Watches the `tool-results` entry of an invocation while its request is pending, to notice a runner that died
 * holding the invocation (its claim's lease ran out) long before the attempt's timeout. Only runners built on the tool
 * kit write claims: anything unreadable means "keep waiting", and so does any KV error (missing
 * bucket, no JetStream, permissions): the attempt's own timeout still bounds the wait. While there is no entry at all
 * (a tool that writes no claims), the optional `served` check notices a tool none of whose instances still runs. A
 * finished record means "the reply is on its way" for the grace only: the process that holds this request may be a
 * runner that merely waited for another runner's claim and died (issue #18 finding 3), and then no reply ever comes.
 */
export class ClaimWatch {
  private readonly graceMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly kvs = new Map<string, Promise<KV>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: ClaimWatchOptions = {},
  ) {
    this.graceMs = Math.max(0, options.graceMs ?? 2_000);
    this.pollMs = Math.max(MIN_PAUSE_MS, options.pollMs ?? 1_000);
    this.now = options.now ?? Date.now;
  }

  /** When the first read of a watch is due after the call was sent (ms): a caller may start the watch only then. */
  get firstLookMs(): number {
    return this.pollMs;
  }

  /**
   * Resolves once the call is known to be lost: the invocation's claim is past `leaseUntil + grace`, or (no claim
   * at all) the tool's services stopped answering for longer than the grace, or its result has been recorded for
   * longer than the grace without the request settling; resolves `undefined` once `signal` aborts. Never rejects. The
   * first read waits one pause after the send (less what the caller already `waited`), so that a live runner that
   * received this attempt has taken over a stale claim left by an earlier one before it is judged.
   */
  async lostCall(invocationId: string, watch: WatchOptions): Promise<Abandonment | undefined> {
    try {
      let pause = Math.max(0, this.pollMs - (watch.waited ?? 0));
      let goneSince: number | undefined;
      let recordedSince: number | undefined;
      let unclaimedSince: number | undefined;
      while (await sleep(pause, watch.signal)) {
        const entry = await this.read(invocationId, watch.tool);
        if (watch.signal.aborted) return undefined;
        pause = this.pollMs;
        if (entry === 'none') {
          if (watch.tool && this.options.claimsExpected?.(watch.tool)) {
            unclaimedSince ??= this.now();
            if (this.now() - unclaimedSince > this.graceMs) return { kind: 'unclaimed', unclaimedSince };
            continue;
          }
          const served =
            watch.tool && this.options.served ? await this.options.served(watch.tool) : undefined;
          if (watch.signal.aborted) return undefined;
          if (served !== false) goneSince = undefined;
          else if (goneSince === undefined) goneSince = this.now();
          else if (this.now() - goneSince > this.graceMs)
            return { kind: 'tool-gone', tool: watch.tool ?? '', goneSince };
          continue;
        }
        goneSince = undefined;
        unclaimedSince = undefined;
        if (entry === 'finished') {
          // The reply is normally on its way; past the grace, nobody will send it (see UnsentResult).
          recordedSince ??= this.now();
          if (this.now() - recordedSince > this.graceMs) return { kind: 'result-unsent', recordedSince };
          continue;
        }
        recordedSince = undefined;
        if (entry === 'other' || watch.ignore?.has(entry.revision)) continue;
        const expiresAt = entry.leaseUntil + this.graceMs;
        if (expiresAt < this.now()) return entry;
        // The claim cannot be stale before `expiresAt`: look again then (or sooner; a renewal moves it on).
        pause = Math.min(this.pollMs, Math.max(MIN_PAUSE_MS, expiresAt - this.now() + 1));
      }
      return undefined;
    } catch {
      return undefined; // never into the executor: the attempt's timeout still bounds the wait
    }
  }

  /** The invocation's claim; 'none' when there is no entry; 'finished' for a result; 'other' for garbage or a failed read. */
  private async read(
    invocationId: string,
    tool?: string,
  ): Promise<StoppedRunner | 'none' | 'finished' | 'other'> {
    const name =
      (tool !== undefined ? this.options.bucketOf?.(tool) : undefined) ??
      this.options.bucket ??
      Buckets.toolResults;
    let entry;
    try {
      const kv = await this.bucket(name);
      entry = await kv.get(KvKeys.toolResult(invocationId));
    } catch {
      this.kvs.delete(name); // bucket missing or KV unreachable now: bind again at the next read
      return 'other';
    }
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return 'none';
    let raw: unknown;
    try {
      raw = entry.json();
    } catch {
      return 'other';
    }
    if (ToolResultRecord.safeParse(raw).success) return 'finished';
    const claim = ToolClaim.safeParse(raw);
    if (!claim.success) return 'other';
    return {
      kind: 'stale-claim',
      runner: claim.data.runner,
      leaseUntil: claim.data.leaseUntil,
      revision: entry.revision,
    };
  }

  private bucket(name: string): Promise<KV> {
    // `open` only binds (no bucket lookup); a missing bucket shows as a failed read.
    let kv = this.kvs.get(name);
    if (!kv) {
      kv = new Kvm(this.nc).open(name);
      this.kvs.set(name, kv);
    }
    return kv;
  }
}

/** Waits `ms`; false when `signal` aborted (at once, without waiting out the timer). */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (alive: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(alive);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
