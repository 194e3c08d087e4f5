import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { type HeldThread, ThreadLeases } from './thread-lease';

describe('ThreadLeases (real JetStream KV)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let leases: ThreadLeases;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    leases = await ThreadLeases.open(nc, { leaseMs: 1_000, pollMs: 50 });
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  const acquire = (threadId: string, goalId: string, seq: number, maxWaitMs = 10_000, onWait?: () => void) =>
    leases.acquire({ threadId, goalId, seq, maxWaitMs, ...(onWait ? { onWait } : {}) });
  const waiting = () => {
    let resolve!: () => void;
    const queued = new Promise<void>((r) => (resolve = r));
    return { queued, onWait: () => resolve() };
  };

  it('hands the thread to the waiting goals in stream order, whoever asked first', async () => {
    const thread = uniqueName('t');
    const first = (await acquire(thread, 'g-first', 5))!;
    const order: string[] = [];
    // g-later queues first, then g-earlier (a smaller stream sequence) arrives.
    const w1 = waiting();
    const later = acquire(thread, 'g-later', 7, 10_000, w1.onWait).then((h) => (order.push('g-later'), h));
    await w1.queued;
    const w2 = waiting();
    const earlier = acquire(thread, 'g-earlier', 6, 10_000, w2.onWait).then(
      (h) => (order.push('g-earlier'), h),
    );
    await w2.queued;
    await first.release();
    const e = (await earlier)!;
    expect(order).toEqual(['g-earlier']);
    await e.release();
    const l = (await later)!;
    expect(order).toEqual(['g-earlier', 'g-later']);
    await l.release();
  });

  it('gives up after maxWaitMs while another goal holds the thread', async () => {
    const thread = uniqueName('t');
    const held = (await acquire(thread, 'g-holder', 1))!;
    const started = Date.now();
    await expect(acquire(thread, 'g-waiter', 2, 300)).resolves.toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
    await held.release();
  });

  it('takes over the lease of a holder that stopped renewing (crashed instance) after the lease time', async () => {
    const thread = uniqueName('t');
    const otherNc = await connect({ servers: nats.url });
    const other = await ThreadLeases.open(otherNc, { leaseMs: 1_000, pollMs: 50 });
    const crashed: HeldThread = (await other.acquire({
      threadId: thread,
      goalId: 'g-dead',
      seq: 1,
      maxWaitMs: 1_000,
    }))!;
    await otherNc.close(); // its renewals fail from now on
    const started = Date.now();
    const next = (await acquire(thread, 'g-next', 2))!;
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(Date.now() - started).toBeLessThan(3_000);
    await next.release();
    expect(crashed.lost.aborted).toBe(false); // it cannot even learn it: its connection is gone
  });

  it('tells a holder that its lease was taken over', async () => {
    const thread = uniqueName('t');
    const paused = await ThreadLeases.open(nc, { leaseMs: 1_000, pollMs: 50, now: () => Date.now() - 5_000 });
    // A holder whose clock says it renewed long ago looks dead to everyone else.
    const stale = (await paused.acquire({ threadId: thread, goalId: 'g-stale', seq: 1, maxWaitMs: 1_000 }))!;
    const fresh = (await acquire(thread, 'g-fresh', 2))!;
    await new Promise<void>((resolve) =>
      stale.lost.addEventListener('abort', () => resolve(), { once: true }),
    );
    expect(stale.lost.aborted).toBe(true);
    await stale.release(); // not the holder any more: leaves the lease alone
    await expect(acquire(thread, 'g-third', 3, 300)).resolves.toBeNull();
    await fresh.release();
  });
});
