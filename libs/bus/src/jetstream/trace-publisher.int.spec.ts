import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { TraceEvent } from '@novelrag/contracts';
import { ensureTraceStream } from './streams';
import { TracePublisher, type TraceDraft } from './trace-publisher';

// The test kit depends on this lib, so this suite uses the machine's NATS directly (NATS_URL or the default).
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
/** A connection whose `request` (what a JetStream publish uses) goes through `intercept`. */
function intercepted(
  nc: NatsConnection,
  intercept: (subject: string, send: () => Promise<Msg>) => Promise<Msg>,
): NatsConnection {
  return new Proxy(nc, {
    get(target, prop, receiver) {
      if (prop === 'request') {
        return (subject: string, data: unknown, opts: unknown) =>
          intercept(subject, () =>
            (target.request as (...args: unknown[]) => Promise<Msg>).call(target, subject, data, opts),
          );
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const draft = (goalId: string): TraceDraft => {
  const {
    schemaVersion: _v,
    seq: _s,
    at: _a,
    ...rest
  } = JSON.parse(
    readFileSync(
      path.join(__dirname, '../../../contracts/fixtures/valid/TraceEvent/goal-accepted.json'),
      'utf8',
    ),
  ) as Record<string, unknown>;
  return { ...rest, goalId, threadId: goalId } as TraceDraft;
};

/** A `goal.accepted` draft told apart by its request text. */
const asking = (goalId: string, request: string) => ({ ...draft(goalId), request }) as TraceDraft;

const cancelledOutcome = {
  status: 'cancelled',
  response: '',
  reason: 'cancelled',
  steps: 0,
  tokens: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  finishedAt: new Date().toISOString(),
};

describe('TracePublisher (real JetStream)', () => {
  let nc: NatsConnection;
  const stream = `TRACE_TEST_${suffix}`;
  const root = `novelrag.test${suffix}.trace`;
  const options = {
    stream,
    subjectOf: (goalId: string, kind: string) => `${root}.${goalId}.${kind}`,
    goalFilter: (goalId: string) => `${root}.${goalId}.>`,
  };

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    await ensureTraceStream(nc, { trace: stream, traceSubject: `${root}.>` });
  });

  afterAll(async () => {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc?.close();
  });

  it('numbers events per goal without gaps and continues after a restart', async () => {
    const first = new TracePublisher(nc, options);
    const seqs = [];
    for (let i = 0; i < 3; i++) seqs.push((await first.publish(draft('ga'))).seq);
    expect(seqs).toEqual([0, 1, 2]);
    expect((await first.publish(draft('gb'))).seq).toBe(0);

    const afterCrash = new TracePublisher(nc, options);
    expect((await afterCrash.publish(draft('ga'))).seq).toBe(3);
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    expect(info.state.messages).toBe(5);
  });

  it('refuses to publish an event outside the contract', async () => {
    const publisher = new TracePublisher(nc, options);
    await expect(
      publisher.publish({ ...draft('gc'), kind: 'goal.accepted', source: 'martian' } as never),
    ).rejects.toThrow();
    expect((await publisher.publish(draft('gc'))).seq).toBe(0);
  });

  it('without validation publishes the events as built, stored as readers parse them and numbered alike', async () => {
    const publisher = new TracePublisher(nc, { ...options, validate: false });
    const results = await publisher.publishAll([{ draft: asking('gv', 'a') }, { draft: asking('gv', 'b') }]);
    const published = results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason));
    expect((await publisher.publish(asking('gv', 'c'))).seq).toBe(2);
    const events = await stored('gv');
    // What a reader parses is what was published (nothing it drops or fills in), in order and without gaps.
    expect(events.slice(0, 2)).toEqual(published);
    expect(events.map((e) => [e.seq, 'request' in e ? e.request : null])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
  });

  it('checking only final events: refuses a final event outside the contract, publishes other events as built', async () => {
    const publisher = new TracePublisher(nc, { ...options, validate: 'final' });
    const outside = { ...asking('gfinal', 'x'), source: 'martian' } as never;
    // Not final: published as built (a reader skips it), and it takes its seq.
    expect((await publisher.publish(outside)).seq).toBe(0);
    const badFinal = {
      kind: 'goal.completed',
      goalId: 'gfinal',
      threadId: 'gfinal',
      outcome: { ...cancelledOutcome, status: 'completed', steps: -1 },
    } as TraceDraft;
    await expect(publisher.publish(badFinal)).rejects.toThrow(/steps/);
    const [refused] = await publisher.publishAll([{ draft: badFinal }]);
    expect(refused?.status).toBe('rejected');
    // A refused event took no seq; the stream holds the one published event and no final event.
    const good = { ...badFinal, outcome: { ...cancelledOutcome, status: 'completed' } } as TraceDraft;
    expect((await publisher.publish(good)).seq).toBe(1);
    const events = await stored('gfinal');
    expect(events.map((e) => [e.seq, e.kind])).toEqual([[1, 'goal.completed']]);
  });

  /** The goal's stored events, in stream order. */
  const stored = async (goalId: string): Promise<TraceEvent[]> => {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream);
    const events: TraceEvent[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (!msg?.subject.startsWith(`${root}.${goalId}.`)) continue;
      const parsed = TraceEvent.safeParse(JSON.parse(msg.string()));
      if (parsed.success) events.push(parsed.data);
    }
    return events;
  };

  it('re-publishes an event whose ack was lost under the same seq, so the next event is not de-duplicated away', async () => {
    let publishes = 0;
    // The 2nd publish reaches the stream but its ack is lost (the client times out).
    const lossy = intercepted(nc, async (subject, send) => {
      const reply = await send();
      if (subject.startsWith(root) && ++publishes === 2) throw new Error('TIMEOUT');
      return reply;
    });
    const publisher = new TracePublisher(lossy, { ...options, retryDelayMs: 10 });
    const seqs = [];
    for (let i = 0; i < 3; i++) seqs.push((await publisher.publish(asking('gd', `r${i}`))).seq);
    expect(seqs).toEqual([0, 1, 2]);
    expect((await stored('gd')).map((e) => [e.seq, 'request' in e ? e.request : null])).toEqual([
      [0, 'r0'],
      [1, 'r1'],
      [2, 'r2'],
    ]);
  });

  it('gives up the seq of an event it could not publish at all, and throws', async () => {
    let failing = false;
    const down = intercepted(nc, (subject, send) =>
      failing && subject.startsWith(root) ? Promise.reject(new Error('TIMEOUT')) : send(),
    );
    const publisher = new TracePublisher(down, { ...options, retryDelayMs: 10 });
    expect((await publisher.publish(draft('ge'))).seq).toBe(0);
    failing = true;
    const attempts = publisher.publish(draft('ge'));
    await expect(attempts).rejects.toThrow('TIMEOUT');
    failing = false;
    // seq 1 may have been stored after all: the next event never takes it.
    expect((await publisher.publish(draft('ge'))).seq).toBe(2);
  });

  it('resumes after the newest trace event, skipping messages on the goal subjects that are not trace events', async () => {
    const first = new TracePublisher(nc, options);
    await first.publish(draft('gf'));
    await first.publish({ ...draft('gf'), kind: 'goal.cancelled', outcome: cancelledOutcome } as TraceDraft);
    nc.publish(`${root}.gf.junk`, 'not json');
    // (It hides the last event of its kind; numbering goes on from the newest event of the others.)
    nc.publish(`${root}.gf.goal.accepted`, JSON.stringify({ not: 'an event' }));
    await nc.flush();

    const next = new TracePublisher(nc, options);
    const resumed = await next.resume('gf');
    expect(resumed.next).toBe(2);
    expect([...resumed.kinds]).toEqual(['goal.cancelled']);
    expect((await next.publish(draft('gf'))).seq).toBe(2);
    expect(await new TracePublisher(nc, options).resume('gx')).toEqual({ next: 0, kinds: new Set() });
  });

  it('continues the numbering from the last stored message, reading the whole trace only when that is no event', async () => {
    const first = new TracePublisher(nc, options);
    await first.publish(draft('gn'));
    await first.publish(draft('gn'));
    expect(await new TracePublisher(nc, options).continueNumbering('gn')).toBe(2);
    expect(await new TracePublisher(nc, options).continueNumbering('gn-none')).toBe(0);
    nc.publish(`${root}.gn.junk`, 'not json');
    await nc.flush();
    const next = new TracePublisher(nc, options);
    expect(await next.continueNumbering('gn')).toBe(2);
    expect((await next.publish(draft('gn'))).seq).toBe(2);
  });

  it('publishes a lot at once in order and without gaps; an invalid event gets no seq', async () => {
    const publisher = new TracePublisher(nc, options);
    await publisher.publish(asking('gl', 'before'));
    const lot = ['a', 'b', 'invalid', 'c'].map((request) => ({
      draft: request === 'invalid' ? ({ ...draft('gl'), source: 'martian' } as never) : asking('gl', request),
    }));
    const results = await publisher.publishAll(lot);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((await stored('gl')).map((e) => [e.seq, 'request' in e ? e.request : null])).toEqual([
      [0, 'before'],
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    expect((await publisher.publish(asking('gl', 'after'))).seq).toBe(4);
  });

  it('publishes a lot whose seqs another publisher took after it, in order, losing none', async () => {
    const stale = new TracePublisher(nc, options);
    await stale.continueNumbering('gt');
    const current = new TracePublisher(nc, options);
    await current.publish(asking('gt', 'x'));
    await current.publish(asking('gt', 'y'));
    const results = await stale.publishAll(['a', 'b', 'c'].map((r) => ({ draft: asking('gt', r) })));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.seq : null))).toEqual([3, 4, 5]);
    const requests = (await stored('gt')).map((e) => ('request' in e ? e.request : null));
    // `c` landed under seq 2 before the lot was found to overlap: it is stored again after `a` and `b`.
    expect(requests).toEqual(['x', 'y', 'c', 'a', 'b', 'c']);
  });

  it('moves on to the next seq when another message already holds the one it was given', async () => {
    const stale = new TracePublisher(nc, options);
    await stale.resume('gg');
    const current = new TracePublisher(nc, options);
    expect((await current.publish(asking('gg', 'current'))).seq).toBe(0);
    // The stale publisher still counts from 0: its event must not be de-duplicated away.
    expect((await stale.publish(asking('gg', 'stale'))).seq).toBe(1);
    expect((await stored('gg')).map((e) => ('request' in e ? e.request : null))).toEqual([
      'current',
      'stale',
    ]);
  });
  it('keeps the last stored event of a lot the newest when an event whose first send never arrived lands late', async () => {
    let sends = 0;
    // The lot's 2nd event never reaches the stream on its first send (a connection lost mid-lot); the 3rd lands.
    const lossy = intercepted(nc, (subject, send) => {
      if (subject.startsWith(`${root}.gr.`) && ++sends === 2) return Promise.reject(new Error('TIMEOUT'));
      return send();
    });
    const old = new TracePublisher(lossy, { ...options, retryDelayMs: 10 });
    const results = await old.publishAll(['a', 'b', 'c'].map((r) => ({ draft: asking('gr', r) })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const events = await stored('gr');
    const newest = Math.max(...events.map((e) => e.seq));
    // `b` landed after `c` (seq 2): `c` is stored again after it, so the next pickup numbers after the newest seq.
    expect(await new TracePublisher(nc, options).continueNumbering('gr')).toBe(newest + 1);
    expect(events.map((e) => ('request' in e ? e.request : null))).toEqual(['a', 'c', 'b', 'c']);
  });
  it('stores a lot event whose ack was lost once, under its seq', async () => {
    let sends = 0;
    const lossy = intercepted(nc, async (subject, send) => {
      const reply = await send();
      if (subject.startsWith(`${root}.gk.`) && ++sends === 2) throw new Error('TIMEOUT');
      return reply;
    });
    const results = await new TracePublisher(lossy, { ...options, retryDelayMs: 10 }).publishAll(
      ['a', 'b', 'c'].map((r) => ({ draft: asking('gk', r) })),
    );
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.seq : null))).toEqual([0, 1, 2]);
    expect((await stored('gk')).map((e) => [e.seq, 'request' in e ? e.request : null])).toEqual([
      [0, 'a'],
      [1, 'b'],
      [2, 'c'],
    ]);
  });
});
