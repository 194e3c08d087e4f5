// A goal's trace over real JetStream when an old holder of the goal (fenced, still flushing) takes a seq the new
// pursuit's lot was given: the final event must be stored once and last (an SSE client stops at the first final event,
// and would miss what is stored after it).
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureTraceStream, TracePublisher } from '@novelrag/bus';
import { TraceEvent } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { randomUUID } from 'node:crypto';
import { silentLog } from '../test/pursuit-fixtures';
import { GoalTrace } from './trace';

const id = randomUUID().slice(0, 8);
const stream = `TRACE_GOALTRACE_${id}`;
const root = `novelrag.test${id}.trace`;
const options = {
  stream,
  subjectOf: (goalId: string, kind: string) => `${root}.${goalId}.${kind}`,
  goalFilter: (goalId: string) => `${root}.${goalId}.>`,
};
const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const accepted = (request: string) => ({
  kind: 'goal.accepted' as const,
  source: 'user' as const,
  request,
  goal: null,
  lang: 'en',
  limits: {},
});

describe('GoalTrace over JetStream: a takeover while the old holder still flushes', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connect({ servers: nats.url });
    await ensureTraceStream(nc, { trace: stream, traceSubject: `${root}.>` });
  });

  afterAll(async () => {
    await jetstreamManager(nc)
      .then((jsm) => jsm.streams.delete(stream))
      .catch(() => undefined);
    await nc?.close();
    await nats?.stop();
  });

  async function stored(goalId: string): Promise<TraceEvent[]> {
    const jsm = await jetstreamManager(nc);
    const events: TraceEvent[] = [];
    const last = (await jsm.streams.info(stream)).state.last_seq;
    for (let seq = 1; seq <= last; seq++) {
      const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      const event = msg ? TraceEvent.safeParse(msg.json()) : undefined;
      if (event?.success && event.data.goalId === goalId) events.push(event.data);
    }
    return events;
  }

  it('stores the final event once, after every event emitted before it', async () => {
    const goalId = `g-${id}`;
    const publisher = new TracePublisher(nc, options);
    await publisher.continueNumbering(goalId); // the new pursuit's pickup: nothing stored yet, next seq 0
    // The old holder, fenced but still flushing, stores its straggler under seq 0.
    await new TracePublisher(nc, options).publish({ ...accepted('old'), goalId, threadId: goalId });
    const trace = new GoalTrace(publisher, goalId, goalId, silentLog, usage);
    trace.emit(accepted('a'));
    trace.emit(accepted('b'));
    trace.emit({
      kind: 'goal.cancelled',
      outcome: {
        status: 'cancelled',
        response: '',
        reason: 'cancelled',
        steps: 0,
        tokens: usage,
        finishedAt: new Date().toISOString(),
      },
    });
    await trace.flush();
    const events = await stored(goalId);
    const kinds = events.map((e) => (e.kind === 'goal.accepted' ? e.request : e.kind));
    expect(kinds.filter((k) => k === 'goal.cancelled')).toHaveLength(1);
    expect(kinds[kinds.length - 1]).toBe('goal.cancelled');
    // Whatever is stored before the final event holds both of the new pursuit's events.
    expect(kinds).toEqual(expect.arrayContaining(['old', 'a', 'b']));
    // Gapless numbering, in stream order.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });

  const cancelled = () => ({
    kind: 'goal.cancelled' as const,
    outcome: {
      status: 'cancelled' as const,
      response: '',
      reason: 'cancelled',
      steps: 0,
      tokens: usage,
      finishedAt: new Date().toISOString(),
    },
  });

  it('stores nothing emitted after the final event (a late interaction expiry, runtime message)', async () => {
    const goalId = `late-${id}`;
    const trace = new GoalTrace(new TracePublisher(nc, options), goalId, goalId, silentLog, usage);
    trace.emit(accepted('a'));
    trace.emit(cancelled());
    await trace.flush();
    // After the end: an interaction timer firing, a runtime message arriving on a subscription that outlived the goal.
    trace.emit({ kind: 'interaction.timed_out', interactionId: 'ia-late' });
    trace.emit(accepted('late'));
    await trace.flush();
    const kinds = (await stored(goalId)).map((e) => (e.kind === 'goal.accepted' ? e.request : e.kind));
    expect(kinds).toEqual(['a', 'goal.cancelled']);
  });

  it('stores nothing once the pursuit lost its fence (closed), not even a final event', async () => {
    const goalId = `fenced-${id}`;
    const trace = new GoalTrace(new TracePublisher(nc, options), goalId, goalId, silentLog, usage);
    trace.emit(accepted('a'));
    await trace.flush();
    trace.close();
    trace.emit({ kind: 'interaction.timed_out', interactionId: 'ia-late' });
    trace.emit(cancelled());
    await trace.flush();
    const kinds = (await stored(goalId)).map((e) => (e.kind === 'goal.accepted' ? e.request : e.kind));
    expect(kinds).toEqual(['a']);
  });

  it('replaces a final event that fails the contract by its bare form, so followers still see the end', async () => {
    const goalId = `bare-${id}`;
    // The orchestrator's publisher: only final events are checked before they go out.
    const trace = new GoalTrace(
      new TracePublisher(nc, { ...options, validate: 'final' }),
      goalId,
      goalId,
      silentLog,
      usage,
    );
    trace.emit(accepted('a'));
    const finishedAt = new Date().toISOString();
    trace.emit({
      kind: 'goal.completed',
      outcome: {
        status: 'completed',
        response: 'the answer',
        reason: 'done',
        steps: 2,
        tokens: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
        finishedAt,
        // Outside the contract (a cited id over 200 characters): readers would skip this event.
        citations: [{ docId: 'd'.repeat(300), uri: null, quote: 'q', verified: false }],
      } as never,
    });
    await trace.flush();
    const events = await stored(goalId);
    expect(events.map((e) => e.kind)).toEqual(['goal.accepted', 'goal.completed']);
    const last = events[1];
    expect(last?.kind === 'goal.completed' && last.outcome).toEqual({
      status: 'completed',
      response: '',
      reason: expect.stringMatching(
        /did not pass the contract \(outcome\.citations.*docId.*goal record/,
      ) as unknown,
      steps: 2,
      tokens: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
      finishedAt,
    });
    expect(events.map((e) => e.seq)).toEqual([0, 1]);
  });
});
