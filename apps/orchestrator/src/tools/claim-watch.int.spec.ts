import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { SCHEMA_VERSION, type ToolResultRecord } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { KvToolResultStore, type ToolClaim, type ToolResultStore } from '@novelrag/tool-kit';
import { ClaimWatch, type Abandonment, type ClaimWatchOptions } from './claim-watch';

const BUCKET = 'claim-watch-test';

/**
 * Counts the watcher's reads of a bucket (KV `get` = a `STREAM.MSG.GET` request on the bucket's stream), so tests wait
 * for reads instead of sleeping: a watcher that sent read n+1 decided to keep waiting after read n.
 */
class ReadCounter {
  private count = 0;
  private readonly waiters: { n: number; resolve: () => void }[] = [];
  private readonly sub: Subscription;

  constructor(nc: NatsConnection, bucket: string) {
    this.sub = nc.subscribe(`$JS.API.STREAM.MSG.GET.KV_${bucket}`, {
      callback: () => {
        this.count += 1;
        for (const w of this.waiters.filter((w) => this.count >= w.n)) w.resolve();
      },
    });
  }

  /** Resolves once `more` reads happened after this call. */
  after(more: number): Promise<void> {
    const n = this.count + more;
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  stop(): void {
    this.sub.unsubscribe();
  }
}

describe('ClaimWatch over a real JetStream KV bucket', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let store: ToolResultStore;
  let reads: ReadCounter;
  let seq = 0;

  const claimOf = (invocationId: string, leaseUntil: number, runner = 'runner-a'): ToolClaim => ({
    schemaVersion: SCHEMA_VERSION,
    state: 'running',
    invocationId,
    goalId: 'goal-1',
    tool: 'echo',
    runner,
    leaseUntil,
    attempt: 1,
  });
  const recordOf = (invocationId: string): ToolResultRecord => ({
    schemaVersion: SCHEMA_VERSION,
    invocationId,
    goalId: 'goal-1',
    tool: 'echo',
    output: { type: 'result', result: 'done' },
    recordedAt: new Date().toISOString(),
  });
  const nextId = () => `goal-1-s${seq++}`;
  const watchOf = (options: Pick<ClaimWatchOptions, 'graceMs' | 'bucket' | 'bucketOf'> = {}) =>
    new ClaimWatch(nc, { bucket: BUCKET, graceMs: 2_000, pollMs: 20, ...options });
  /** A watch of a tool whose runners claim every call before running it. */
  const claimingWatch = () =>
    new ClaimWatch(nc, { bucket: BUCKET, graceMs: 100, pollMs: 20, claimsExpected: () => true });
  /** Starts a watch; `state()` tells whether it has resolved yet. */
  const start = (watch: ClaimWatch, invocationId: string, ignore?: ReadonlySet<number>) => {
    const stop = new AbortController();
    let result: Abandonment | undefined | 'pending' = 'pending';
    const done = watch
      .lostCall(invocationId, { signal: stop.signal, ...(ignore ? { ignore } : {}) })
      .then((r) => (result = r));
    return { stop, done, state: () => result };
  };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    store = await KvToolResultStore.open(nc, { bucket: BUCKET });
    reads = new ReadCounter(nc, BUCKET);
  });

  afterAll(async () => {
    reads?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('abandons a claim whose lease ran out more than the grace ago, naming its runner', async () => {
    const id = nextId();
    const revision = await store.claim(claimOf(id, Date.now() - 5_000, 'runner-dead'));
    const watch = start(watchOf(), id);
    await expect(watch.done).resolves.toEqual({
      kind: 'stale-claim',
      runner: 'runner-dead',
      leaseUntil: expect.any(Number),
      revision,
    });
  });

  it('reads at once when the caller already waited the first pause', async () => {
    const id = nextId();
    const revision = await store.claim(claimOf(id, Date.now() - 5_000, 'runner-dead'));
    const watch = new ClaimWatch(nc, { bucket: BUCKET, graceMs: 2_000, pollMs: 60_000 });
    expect(watch.firstLookMs).toBe(60_000);
    const stop = new AbortController();
    // Without `waited` the first read would come a minute from now.
    await expect(watch.lostCall(id, { signal: stop.signal, waited: 60_000 })).resolves.toMatchObject({
      kind: 'stale-claim',
      revision,
    });
  });

  it("reads only the bucket of the tool's owner: a claim planted in another principal's bucket is not taken", async () => {
    const owner = await KvToolResultStore.open(nc, { bucket: `${BUCKET}-owner` });
    const ownerReads = new ReadCounter(nc, `${BUCKET}-owner`);
    const watch = watchOf({ bucketOf: (tool) => (tool === 'owned' ? `${BUCKET}-owner` : undefined) });
    const id = nextId();
    await store.claim(claimOf(id, Date.now() - 60_000, 'runner-planted'));
    const stop = new AbortController();
    let state: Abandonment | undefined | 'pending' = 'pending';
    const done = watch.lostCall(id, { signal: stop.signal, tool: 'owned' }).then((r) => (state = r));
    await ownerReads.after(3);
    expect(state).toBe('pending'); // the planted stale claim would have ended the call at the first read
    const revision = await owner.claim(claimOf(id, Date.now() - 60_000, 'runner-owner'));
    await expect(done).resolves.toMatchObject({ kind: 'stale-claim', runner: 'runner-owner', revision });
    ownerReads.stop();
  });

  it('keeps waiting while the claim is alive or within the grace, and notices when renewals stop', async () => {
    const id = nextId();
    const first = await store.claim(claimOf(id, Date.now() + 60_000));
    const watch = start(watchOf({ graceMs: 30_000 }), id);
    await reads.after(3);
    expect(watch.state()).toBe('pending');
    // Expired, but less than the grace ago (the runner's clock may be behind ours).
    const inGrace = await store.swap(claimOf(id, Date.now() - 500), first!);
    await reads.after(3);
    expect(watch.state()).toBe('pending');
    // The runner stopped renewing long ago.
    const stale = await store.swap(claimOf(id, Date.now() - 60_000), inGrace!);
    await expect(watch.done).resolves.toMatchObject({ runner: 'runner-a', revision: stale });
  });

  it('keeps waiting when there is no entry (a tool that does not use the bucket)', async () => {
    const watch = start(watchOf(), nextId());
    await reads.after(3);
    expect(watch.state()).toBe('pending');
    watch.stop.abort();
    await expect(watch.done).resolves.toBeUndefined();
  });

  it('keeps waiting while a finished record is within the grace (the reply is on its way)', async () => {
    const id = nextId();
    await store.record(recordOf(id));
    const watch = start(watchOf({ graceMs: 60_000 }), id);
    await reads.after(3);
    expect(watch.state()).toBe('pending');
    watch.stop.abort();
    await expect(watch.done).resolves.toBeUndefined();
  });

  it('gives the call up once its result stays recorded past the grace without a reply (nobody will send it)', async () => {
    const id = nextId();
    const watch = start(watchOf({ graceMs: 100 }), id);
    await reads.after(2);
    const before = Date.now();
    await store.record(recordOf(id));
    const lost = await watch.done;
    expect(lost).toEqual({ kind: 'result-unsent', recordedSince: expect.any(Number) });
    expect((lost as { recordedSince: number }).recordedSince).toBeGreaterThanOrEqual(before);
  });

  it('gives up a call of a tool whose runners claim every call once no claim appeared past the grace', async () => {
    const id = nextId();
    const watch = claimingWatch();
    const stop = new AbortController();
    await expect(watch.lostCall(id, { signal: stop.signal, tool: 'echo' })).resolves.toEqual({
      kind: 'unclaimed',
      unclaimedSince: expect.any(Number),
    });
  });

  it('keeps waiting for a claimed call of such a tool while its claim is renewed', async () => {
    const id = nextId();
    await store.claim(claimOf(id, Date.now() + 60_000));
    const watch = claimingWatch();
    const stop = new AbortController();
    let state: Abandonment | undefined | 'pending' = 'pending';
    const done = watch.lostCall(id, { signal: stop.signal, tool: 'echo' }).then((r) => (state = r));
    await reads.after(10);
    expect(state).toBe('pending');
    stop.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('ignores a stale claim it was told to ignore, and notices the next one', async () => {
    const id = nextId();
    const old = await store.claim(claimOf(id, Date.now() - 10_000, 'runner-first'));
    const watch = start(watchOf(), id, new Set([old!]));
    await reads.after(3);
    expect(watch.state()).toBe('pending');
    // The next runner took it over and died too.
    const next = await store.swap(claimOf(id, Date.now() - 10_000, 'runner-second'), old!);
    await expect(watch.done).resolves.toMatchObject({ runner: 'runner-second', revision: next });
  });

  it('tolerates a missing bucket (keeps waiting, never rejects)', async () => {
    const missing = new ReadCounter(nc, 'no-such-bucket');
    try {
      const watch = start(watchOf({ bucket: 'no-such-bucket' }), nextId());
      await missing.after(3);
      expect(watch.state()).toBe('pending');
      watch.stop.abort();
      await expect(watch.done).resolves.toBeUndefined();
    } finally {
      missing.stop();
    }
  });

  it('ends at once when the request settles, without waiting out its pause', async () => {
    const watch = start(new ClaimWatch(nc, { bucket: BUCKET, pollMs: 10 * 60_000 }), nextId());
    watch.stop.abort();
    // A pending 10-minute timer would keep this test (and Jest) waiting.
    await expect(watch.done).resolves.toBeUndefined();
  });
});
