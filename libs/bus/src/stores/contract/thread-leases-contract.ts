/// <reference types="jest" />
// The ThreadLeases contract: the KV leases and the in-memory twin both run it (tests only, not runtime code).
import { randomUUID } from 'node:crypto';
import type { HeldThread, ThreadLeaseOptions, ThreadLeases } from '../thread-leases';
import { type ContractFactory, perTest, present } from './harness';

export interface ThreadLeasesHarness {
  /** Leases over one shared store (like one bucket); `open` gives another instance over it (another orchestrator). */
  readonly leases: ThreadLeases;
  open(options: ThreadLeaseOptions): Promise<ThreadLeases>;
  /** Another instance that can be made to die: after `crash()` it can no longer read or write (no renewals). */
  openCrashable(options: ThreadLeaseOptions): Promise<{ leases: ThreadLeases; crash(): Promise<void> }>;
  cleanup(): Promise<void>;
}

/** The options every contract harness opens its `leases` with. */
export const CONTRACT_LEASE_OPTIONS: ThreadLeaseOptions = { leaseMs: 1_000, pollMs: 50 };

/** Registers `ThreadLeases contract: <name>`; leases opened with CONTRACT_LEASE_OPTIONS, fresh per test. */
export function describeThreadLeasesContract(
  name: string,
  factory: ContractFactory<ThreadLeasesHarness>,
): void {
  describe(`ThreadLeases contract: ${name}`, () => {
    const harness = perTest(factory);
    const thread = () => `t-${randomUUID()}`;
    const acquire = (
      threadId: string,
      goalId: string,
      seq: number,
      maxWaitMs = 10_000,
      onWait?: () => void,
    ) => harness().leases.acquire({ threadId, goalId, seq, maxWaitMs, ...(onWait ? { onWait } : {}) });
    const waiting = () => {
      let resolve!: () => void;
      const queued = new Promise<void>((r) => (resolve = r));
      return { queued, onWait: () => resolve() };
    };

    it('hands the thread to the waiting goals in stream order, whoever asked first', async () => {
      const t = thread();
      const first = present(await acquire(t, 'g-first', 5));
      const order: string[] = [];
      // g-later queues first, then g-earlier (a smaller stream sequence) arrives.
      const w1 = waiting();
      const later = acquire(t, 'g-later', 7, 10_000, w1.onWait).then((h) => (order.push('g-later'), h));
      await w1.queued;
      const w2 = waiting();
      const earlier = acquire(t, 'g-earlier', 6, 10_000, w2.onWait).then((h) => (order.push('g-earlier'), h));
      await w2.queued;
      await first.release();
      const e = present(await earlier);
      expect(order).toEqual(['g-earlier']);
      await e.release();
      const l = present(await later);
      expect(order).toEqual(['g-earlier', 'g-later']);
      await l.release();
    });

    it('gives up after maxWaitMs while another goal holds the thread', async () => {
      const t = thread();
      const held = present(await acquire(t, 'g-holder', 1));
      const started = Date.now();
      await expect(acquire(t, 'g-waiter', 2, 300)).resolves.toBeNull();
      expect(Date.now() - started).toBeLessThan(2_000);
      await held.release();
    });

    it('gives up at once when the signal aborts, and never holds a thread for an aborted request', async () => {
      const t = thread();
      const held = present(await acquire(t, 'g-holder', 1));
      const abort = new AbortController();
      const w = waiting();
      const waiter = harness().leases.acquire({
        threadId: t,
        goalId: 'g-aborted',
        seq: 2,
        maxWaitMs: 60_000,
        signal: abort.signal,
        onWait: w.onWait,
      });
      await w.queued;
      abort.abort();
      await expect(waiter).resolves.toBeNull();
      await held.release();
    });

    it('a waiter whose signal aborts (its instance stops) leaves the queue: the goal behind it is next', async () => {
      // A lease far longer than the test: only leaving the queue, not expiry, lets g-behind through.
      const leases = await harness().open({ leaseMs: 120_000, pollMs: 50 });
      const t = thread();
      const held = present(
        await leases.acquire({ threadId: t, goalId: 'g-holder', seq: 1, maxWaitMs: 1_000 }),
      );
      const queue = (goalId: string, seq: number, maxWaitMs: number, signal?: AbortSignal) => {
        const w = waiting();
        const acquired = leases.acquire({
          threadId: t,
          goalId,
          seq,
          maxWaitMs,
          onWait: w.onWait,
          ...(signal ? { signal } : {}),
        });
        return { acquired, queued: w.queued };
      };
      const abort = new AbortController();
      const first = queue('g-stopping', 2, 60_000, abort.signal);
      await first.queued;
      const second = queue('g-behind', 3, 20_000);
      await second.queued;
      abort.abort();
      await expect(first.acquired).resolves.toBeNull();
      await held.release();
      const next = present(await second.acquired); // before, it waited for g-stopping's entry until maxWaitMs: null
      await next.release();
    });

    it('takes over the lease of a holder that stopped renewing (crashed instance) after the lease time', async () => {
      const t = thread();
      const other = await harness().openCrashable(CONTRACT_LEASE_OPTIONS);
      const crashed: HeldThread = present(
        await other.leases.acquire({ threadId: t, goalId: 'g-dead', seq: 1, maxWaitMs: 1_000 }),
      );
      await other.crash(); // its renewals fail from now on
      const started = Date.now();
      const next = present(await acquire(t, 'g-next', 2));
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
      expect(Date.now() - started).toBeLessThan(3_000);
      await next.release();
      expect(crashed.lost.aborted).toBe(false); // it cannot even learn it: its store is gone
    });

    it('a holder whose clock is 10 s off keeps its lease while it renews, and is taken over once it stops', async () => {
      // Liveness is watched on the waiter's own clock, never compared with the holder's (before: the slow clock's
      // holder looked dead at once, the fast clock's stayed alive 10 s after it stopped).
      // A lease of 4 s, renewed every 0.8 s: only a stall of the holder's process of over 3 s (a CI run with a CPU hog
      // stalled it past the 1.6 s a 2 s lease allows) makes it look dead while it renews.
      const options = { leaseMs: 4_000, pollMs: 50 };
      const waiter = await harness().open(options);
      const trial = async (skewMs: number) => {
        const t = thread();
        const other = await harness().openCrashable({ ...options, now: () => Date.now() + skewMs });
        const held = present(
          await other.leases.acquire({ threadId: t, goalId: 'g-skewed', seq: 1, maxWaitMs: 1_000 }),
        );
        const next = { threadId: t, goalId: 'g-next', seq: 2 };
        await expect(waiter.acquire({ ...next, maxWaitMs: 5_000 })).resolves.toBeNull();
        expect(held.lost.aborted).toBe(false);
        await other.crash();
        const taken = present(await waiter.acquire({ ...next, maxWaitMs: 15_000 }));
        await taken.release();
      };
      await Promise.all([trial(-10_000), trial(10_000)]);
    });

    it('a goal delivered again takes its earlier delivery over at once, and that holder learns it lost', async () => {
      const t = thread();
      const earlier = await harness().open(CONTRACT_LEASE_OPTIONS);
      // Its renewals go on (before, the new delivery waited for them to stop: null after 5 s).
      const stale = present(
        await earlier.acquire({ threadId: t, goalId: 'g-again', seq: 1, maxWaitMs: 1_000 }),
      );
      const fresh = present(await acquire(t, 'g-again', 1, 5_000));
      await new Promise<void>((resolve) =>
        stale.lost.addEventListener('abort', () => resolve(), { once: true }),
      );
      expect(stale.lost.aborted).toBe(true);
      await stale.release(); // not the holder any more: leaves the lease alone
      await expect(acquire(t, 'g-third', 3, 300)).resolves.toBeNull();
      await fresh.release();
    });
  });
}
