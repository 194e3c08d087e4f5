import {
  type GoalRecord,
  type InteractionRequest,
  type PendingInteraction,
  SCHEMA_VERSION,
  type TraceEvent,
} from '@novelrag/contracts';
import { askedConfirm, askingCall } from '../test/pursuit-fixtures';
import type { GoalCheckpoint } from './checkpoint';
import { GoalInteractions } from './interactions';
import { PursuitStop } from './stop';
import type { GoalTrace } from './trace';

const invocation = askingCall;
const question: InteractionRequest = { ...askedConfirm, message: 'apply these 2 operations?' };

/** A question recorded by an earlier pursuit of the goal (before a crash), answered while nobody held the goal. */
const recordedQuestion = (over: Partial<PendingInteraction>): PendingInteraction =>
  ({
    interactionId: 'i-before-crash',
    invocationId: 'inv-1',
    tool: 'apply',
    step: 2,
    createdAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 300_000).toISOString(),
    kind: 'confirm',
    message: 'apply these 2 operations?',
    answer: { approved: true },
    ...over,
  }) as PendingInteraction;

/** The goal record as a compare-and-swap cell the test can also write (the gateway storing an answer). */
class FakeRecord {
  record = { goalId: 'goal-1', status: 'running' } as unknown as GoalRecord;
  readonly reasons: string[] = [];
  private readonly written: (() => void)[] = [];

  readonly checkpoint = {
    get record(): GoalRecord {
      return self.record;
    },
    write: (change: (current: GoalRecord) => Partial<GoalRecord>, reason?: string) => {
      this.record = { ...this.record, ...change(this.record) };
      this.reasons.push(reason ?? '');
      for (const done of this.written.splice(0)) done();
      return Promise.resolve(this.record);
    },
    refresh: () => Promise.resolve(this.record),
  } as unknown as GoalCheckpoint;

  /** Resolves after the next write. */
  nextWrite(): Promise<void> {
    return new Promise((resolve) => this.written.push(resolve));
  }
}
let self: FakeRecord;

const stops: PursuitStop[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.stop({ kind: 'cancelled' }); // ends what a test left waiting
});

const setUp = (options: { recordPollMs?: number; defaultTimeoutMs?: number; now?: () => number } = {}) => {
  self = new FakeRecord();
  const events: TraceEvent['kind'][] = [];
  const trace = { emit: (e: { kind: TraceEvent['kind'] }) => events.push(e.kind) } as unknown as GoalTrace;
  const stop = new PursuitStop();
  stops.push(stop);
  const interactions = new GoalInteractions({
    checkpoint: self.checkpoint,
    trace,
    running: (id: string) =>
      id === invocation.invocationId
        ? invocation
        : id === 'inv-2'
          ? { ...invocation, invocationId: 'inv-2', step: 3 }
          : undefined,
    deadline: Date.now() + 600_000,
    defaultTimeoutMs: options.defaultTimeoutMs ?? 300_000,
    signal: stop.signal,
    ...(options.recordPollMs ? { recordPollMs: options.recordPollMs } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return { fake: self, events, interactions, stop };
};

const pendingOf = (fake: FakeRecord): PendingInteraction => {
  const pending = fake.record.pendingInteraction;
  if (!pending) throw new Error('no pending interaction');
  return pending;
};

const ans = (interactionId: string) =>
  ({ schemaVersion: SCHEMA_VERSION, goalId: 'goal-1', interactionId, approved: true }) as const;
const flush = () => new Promise((r) => setTimeout(r, 10));

describe('GoalInteractions: durable questions', () => {
  it('applies NOVELRAG_INTERACTION_TIMEOUT_MS (the default) when the tool gives no timeout', async () => {
    const now = Date.now();
    const { fake, interactions } = setUp({ defaultTimeoutMs: 60_000, now: () => now });
    const written = fake.nextWrite();
    void interactions.request(question);
    await written;
    expect(Date.parse(pendingOf(fake).expiresAt)).toBe(now + 60_000);
  });

  it('takes a repeat of the same question (the runner keeps it alive) as that question: recorded and shown once', async () => {
    const { fake, events, interactions } = setUp();
    const written = fake.nextWrite();
    const first = interactions.request(question);
    await written;
    const again = interactions.request(question);
    const other = await interactions.request({ ...question, message: 'something else?' });
    expect(other).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    const { interactionId } = pendingOf(fake);
    expect(
      interactions.answer({ schemaVersion: SCHEMA_VERSION, goalId: 'goal-1', interactionId, approved: true }),
    ).toEqual({
      ok: true,
      data: { accepted: true },
    });
    await expect(first).resolves.toEqual({ ok: true, data: { approved: true } });
    await expect(again).resolves.toEqual({ ok: true, data: { approved: true } });
    expect(events.filter((k) => k === 'interaction.requested')).toHaveLength(1);
    expect(events.filter((k) => k === 'interaction.answered')).toHaveLength(1);
    expect(fake.record.pendingInteraction).toBeUndefined();
  });

  it('after a resume, the re-sent call takes over the recorded question and gets the answer stored meanwhile', async () => {
    const { fake, events, interactions } = setUp();
    const recorded = recordedQuestion({ answeredBy: 'alice' });
    fake.record = { ...fake.record, pendingInteraction: recorded };
    await expect(interactions.request(question)).resolves.toEqual({ ok: true, data: { approved: true } });
    expect(events).toEqual(['interaction.answered']); // not shown again
    expect(fake.record.pendingInteraction).toBeUndefined();
  });

  it('does not apply a stored answer to a different question of the same call (regenerated content)', async () => {
    const { fake, events, interactions } = setUp();
    fake.record = {
      ...fake.record,
      pendingInteraction: recordedQuestion({ interactionId: 'i-old', message: 'other operations?' }),
    };
    const written = fake.nextWrite();
    void interactions.request(question);
    await written;
    expect(pendingOf(fake).interactionId).not.toBe('i-old');
    expect(pendingOf(fake).answer).toBeUndefined();
    expect(events).toEqual(['interaction.requested']);
  });

  it('picks up an answer the gateway stored in the record while it waits (no bus message)', async () => {
    const { fake, interactions } = setUp({ recordPollMs: 20 });
    const written = fake.nextWrite();
    const reply = interactions.request(question);
    await written;
    fake.record = {
      ...fake.record,
      pendingInteraction: { ...pendingOf(fake), answer: { approved: false }, answeredBy: 'bob' },
    };
    await expect(reply).resolves.toEqual({ ok: true, data: { approved: false } });
  });

  it('at expiry, an answer stored meanwhile counts instead of the timeout', async () => {
    let now = Date.now();
    const { fake, events, interactions } = setUp({ now: () => now });
    const written = fake.nextWrite();
    const reply = interactions.request({ ...question, timeoutMs: 1_000 });
    await written;
    // The answer lands in the record between the last poll and the expiry.
    fake.record = { ...fake.record, pendingInteraction: { ...pendingOf(fake), answer: { approved: true } } };
    now += 1_000;
    await expect(reply).resolves.toEqual({ ok: true, data: { approved: true } });
    expect(events).not.toContain('interaction.timed_out');
  });

  it('a queued invocation that re-sends its question is asked it ONCE (joins, not queued twice)', async () => {
    const { fake, events, interactions } = setUp();
    const a = interactions.request(question); // inv-1, asked at once
    await flush();
    const q2: InteractionRequest = { ...question, invocationId: 'inv-2', step: 3, message: 'delete it?' };
    const b1 = interactions.request(q2); // inv-2, queued behind inv-1
    const b2 = interactions.request(q2); // the runner re-sends it while it waits in the queue
    interactions.answer(ans(fake.record.pendingInteraction!.interactionId));
    await expect(a).resolves.toEqual({ ok: true, data: { approved: true } });
    await flush();
    const p2 = fake.record.pendingInteraction!;
    expect(p2.invocationId).toBe('inv-2');
    interactions.answer(ans(p2.interactionId));
    await expect(b1).resolves.toEqual({ ok: true, data: { approved: true } });
    await flush();
    // Same invocation, same text: must be the SAME question, answered by the one answer.
    expect(events.filter((k) => k === 'interaction.requested')).toHaveLength(2);
    expect(fake.record.pendingInteraction).toBeUndefined();
    await expect(Promise.race([b2, flush().then(() => 'still waiting')])).resolves.toEqual({
      ok: true,
      data: { approved: true },
    });
  });
});
