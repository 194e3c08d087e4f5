import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ToolCallReply } from '@novelrag/agenturn';
import { InMemoryMemory, ScriptedChatModel, deferred } from '@novelrag/agenturn/testing';
import { KvGoalStore, KvThreadStore, ensureTraceStream } from '@novelrag/bus';
import { FINAL_TRACE_KINDS, type TraceEvent, type TraceEventOf } from '@novelrag/contracts';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { TraceLog } from '../../test/harness';
import {
  AZURE_SECT,
  READY,
  type RagWorld,
  SHEN_HE,
  YU_GUI,
  ask,
  retrievalTools,
  toolCall,
} from '../../test/rag-fixtures';

jest.setTimeout(60_000);

const route = (path: 'direct' | 'retrieve', reason = 'a question about the world') => ({
  kind: 'structured' as const,
  schemaName: 'query_route',
  respond: { path, reason },
});
const tools = (reply: ToolCallReply) => ({ kind: 'tools' as const, purpose: 'rag_agent', respond: reply });
const answer = (text: string) => ({ kind: 'stream' as const, purpose: 'answer', respond: text });
const memoryUpdate = (summary: string, facts: string[] = []) => ({
  kind: 'structured' as const,
  schemaName: 'memory_update',
  respond: { summary, facts },
});
const cite = (doc: { doc_id: string }, quote: string, claim: string) =>
  `<cite doc_id="${doc.doc_id}" quote="${quote}">${claim}</cite>`;

/** The `rag` agent kind over real NATS (goal KV, trace stream, thread leases), a scripted model and fixture tools. */
describe('the rag agent kind (real NATS)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let world: RagWorld;
  let trace: TraceLog;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    await ensureTraceStream(nc);
    world = { nc, store: await KvGoalStore.open(nc), threads: await KvThreadStore.open(nc) };
    trace = new TraceLog(nc);
  });

  afterAll(async () => {
    trace?.stop();
    await nc?.close();
    await nats?.stop();
  });

  /** The goal's trace once its final event arrived. */
  async function traceOf(goalId: string): Promise<TraceEvent[]> {
    await Promise.race(FINAL_TRACE_KINDS.map((k) => trace.waitFor(goalId, k)));
    return trace.of(goalId);
  }
  const only = <K extends TraceEvent['kind']>(events: TraceEvent[], kind: K) =>
    events.filter((e): e is TraceEventOf<K> => e.kind === kind);

  it('retrieves, grades and answers with verified citations, streaming the answer', async () => {
    const t = retrievalTools();
    const text = `${cite(YU_GUI, '青云宗的剑客', '余归 is a swordsman of the Azure Sect')}.`;
    const model = new ScriptedChatModel([
      route('retrieve'),
      tools(toolCall('vector_retrieve', { query: '余归' })),
      tools(toolCall('grade')),
      tools(READY),
      answer(text),
    ]);
    const { record, deltas } = await ask(world, { question: 'Who is 余归?', model, tools: t });

    expect(record.status).toBe('completed');
    expect(record.goal).toBeNull(); // the question is pursued as asked, not translated
    expect(record.outcome).toMatchObject({ response: text, steps: 2 });
    expect(record.outcome?.citations).toEqual([
      { docId: YU_GUI.doc_id, uri: YU_GUI.uri, quote: '青云宗的剑客', verified: true },
    ]);
    expect(record.outcome?.limited).toBeUndefined();
    // The agent passed the retrieved documents to grade itself, and the question.
    expect(t.grade.calls[0]?.params).toMatchObject({ question: 'Who is 余归?', documents: [YU_GUI] });
    expect(deltas.map((d) => d.text).join('')).toBe(text);
    expect(deltas.map((d) => d.index)).toEqual(deltas.map((_d, i) => i));
    model.assertDone();

    const events = await traceOf(record.goalId);
    expect(only(events, 'rag.route')).toEqual([expect.objectContaining({ path: 'retrieve' })]);
    expect(only(events, 'rag.retrieve')[0]).toMatchObject({
      tool: 'vector_retrieve',
      query: '余归',
      documents: [{ docId: YU_GUI.doc_id, uri: YU_GUI.uri }],
    });
    expect(only(events, 'rag.grade')[0]).toMatchObject({ kept: [{ uri: YU_GUI.uri }], dropped: [] });
    expect(only(events, 'rag.answer')).toEqual([
      expect.objectContaining({
        path: 'retrieve',
        answer: text,
        unverified: 0,
        toolCalls: 2,
        limited: false,
      }),
    ]);
  });

  it('rewrites the query and retrieves again when grading drops everything', async () => {
    const t = retrievalTools();
    const model = new ScriptedChatModel([
      route('retrieve'),
      tools(toolCall('vector_retrieve', { query: 'merchant' })),
      tools(toolCall('grade')),
      tools(toolCall('query_rewrite')),
      tools(toolCall('vector_retrieve', { query: '余归' })),
      tools(READY),
      answer(`${cite(YU_GUI, '性格沉默而固执', 'He is silent and stubborn')}.`),
    ]);
    const { record } = await ask(world, { question: 'What is the quiet swordsman like?', model, tools: t });

    expect(record.status).toBe('completed');
    expect(t.query_rewrite.calls[0]?.params).toEqual({
      question: 'What is the quiet swordsman like?',
      tried_queries: ['merchant'],
    });
    expect(record.outcome?.citations).toEqual([expect.objectContaining({ verified: true, uri: YU_GUI.uri })]);
    const events = await traceOf(record.goalId);
    expect(only(events, 'rag.grade')[0]).toMatchObject({ kept: [], dropped: [{ uri: SHEN_HE.uri }] });
    expect(only(events, 'rag.rewrite')).toEqual([expect.objectContaining({ query: '余归' })]);
    expect(only(events, 'rag.retrieve').map((e) => e.query)).toEqual(['merchant', '余归']);
  });

  it('answers with what it has, marked as limited, when the tool-call cap is reached', async () => {
    const t = retrievalTools();
    const model = new ScriptedChatModel([
      route('retrieve'),
      tools(toolCall('vector_retrieve', { query: 'Azure' })),
      tools(toolCall('rerank')),
      // No third tool decision: the cap of 2 calls ends the retrieval.
      answer(`${cite(AZURE_SECT, 'seat in the northern mountains', 'The sect sits in the north')}.`),
    ]);
    const { record } = await ask(world, {
      question: 'Where is the Azure Sect?',
      model,
      tools: t,
      maxToolCalls: 2,
    });

    expect(record.status).toBe('completed');
    expect(record.outcome).toMatchObject({ limited: true, steps: 2 });
    expect(record.outcome?.reason).toContain('cap of 2');
    model.assertDone();
    const events = await traceOf(record.goalId);
    expect(only(events, 'rag.answer')[0]).toMatchObject({ limited: true, toolCalls: 2 });
  });

  it('takes the fast path for a greeting: no retrieval, and the trace says why', async () => {
    const t = retrievalTools();
    const model = new ScriptedChatModel([
      route('direct', 'a greeting'),
      answer('Hello! Ask me about the world.'),
    ]);
    const { record } = await ask(world, { question: 'Hi there!', model, tools: t });

    expect(record.outcome).toMatchObject({ status: 'completed', steps: 0, citations: [] });
    expect(t.vector_retrieve.calls).toHaveLength(0);
    const events = await traceOf(record.goalId);
    expect(only(events, 'rag.route')).toEqual([
      expect.objectContaining({ path: 'direct', reason: 'a greeting' }),
    ]);
    expect(only(events, 'rag.answer')[0]).toMatchObject({ path: 'direct', toolCalls: 0 });
  });

  it('answers a follow-up question from episodic memory', async () => {
    const memory = new InMemoryMemory();
    const threadId = uniqueName('t-rag').replace(/[^A-Za-z0-9_-]/g, '_');
    const first = `${cite(YU_GUI, '青云宗的剑客', '余归 is a swordsman of the Azure Sect')}.`;
    await ask(world, {
      question: 'Who is 余归?',
      threadId,
      memory,
      tools: retrievalTools(),
      model: new ScriptedChatModel([
        route('retrieve'),
        tools(toolCall('vector_retrieve', { query: '余归' })),
        tools(READY),
        answer(first),
        memoryUpdate('The user asked who 余归 is: a swordsman of the Azure Sect.', [
          'The user is writing about 余归.',
        ]),
      ]),
    });

    const seen: string[] = [];
    const model = new ScriptedChatModel([
      {
        kind: 'structured',
        schemaName: 'query_route',
        respond: (options: { messages: readonly { content: string }[] }) => {
          seen.push(options.messages.map((m) => m.content).join('\n'));
          return { path: 'direct', reason: 'the conversation already says which sect' };
        },
      },
      {
        kind: 'stream',
        purpose: 'answer',
        respond: (options) => {
          seen.push(options.messages.map((m) => m.content).join('\n'));
          return 'As said earlier in this conversation, her sect is the Azure Sect.';
        },
      },
      memoryUpdate('The user asked about 余归 and her sect, the Azure Sect.'),
    ]);
    const { record } = await ask(world, {
      question: 'and her sect?',
      threadId,
      memory,
      model,
      tools: retrievalTools(),
    });

    expect(record.outcome).toMatchObject({ status: 'completed', steps: 0 });
    expect(record.outcome?.response).toContain('Azure Sect');
    // Both the route and the answer saw the session summary and the earlier exchange (episodic memory).
    for (const prompt of seen) {
      expect(prompt).toContain('a swordsman of the Azure Sect.');
      expect(prompt).toContain('Q: Who is 余归?');
    }
    expect(await memory.sessionSummary(threadId)).toBe(
      'The user asked about 余归 and her sect, the Azure Sect.',
    );
  });

  it('catches a fabricated quote: stripped and flagged under strip, the answer fails under fail', async () => {
    const fabricated = `${cite(YU_GUI, '余归 is the sect leader', 'She leads the sect')}, ${cite(YU_GUI, '青云宗的剑客', 'and fights with a sword')}.`;
    const script = () =>
      new ScriptedChatModel([
        route('retrieve'),
        tools(toolCall('vector_retrieve', { query: '余归' })),
        tools(READY),
        answer(fabricated),
      ]);
    const stripped = await ask(world, { question: 'Who is 余归?', model: script(), tools: retrievalTools() });
    expect(stripped.record.outcome?.response).toBe(
      `She leads the sect, ${cite(YU_GUI, '青云宗的剑客', 'and fights with a sword')}.`,
    );
    expect(stripped.record.outcome?.citations).toEqual([
      expect.objectContaining({
        quote: '余归 is the sect leader',
        verified: false,
        problem: 'quote_not_found',
      }),
      expect.objectContaining({ quote: '青云宗的剑客', verified: true }),
    ]);
    const events = await traceOf(stripped.record.goalId);
    expect(only(events, 'rag.answer')[0]).toMatchObject({ unverified: 1, policy: 'strip' });

    const failed = await ask(world, {
      question: 'Who is 余归?',
      model: script(),
      tools: retrievalTools(),
      policy: 'fail',
    });
    expect(failed.record.status).toBe('failed');
    expect(failed.record.outcome?.error?.code).toBe('MODEL_OUTPUT_INVALID');
    expect(failed.record.outcome?.citations).toBeUndefined();
  });

  it('completes an answer citing a document id the model made up, however long (clipped to the contract)', async () => {
    const madeUp = `d-${'x'.repeat(400)}`;
    const text = `${cite({ doc_id: madeUp }, '青云宗的剑客', '余归 is a swordsman')}.`;
    const model = new ScriptedChatModel([
      route('retrieve'),
      tools(toolCall('vector_retrieve', { query: '余归' })),
      tools(READY),
      answer(text),
    ]);
    const { record } = await ask(world, { question: 'Who is 余归?', model, tools: retrievalTools() });
    expect(record.status).toBe('completed');
    const citation = { docId: madeUp.slice(0, 200), verified: false, problem: 'unknown_document' };
    expect(record.outcome?.citations).toEqual([expect.objectContaining(citation)]);
    // The trace's answer and final event reach a reader that parses them (a reader skips what does not).
    const events = await traceOf(record.goalId);
    expect(only(events, 'rag.answer')).toEqual([
      expect.objectContaining({ citations: [expect.objectContaining(citation)] }),
    ]);
    expect(only(events, 'goal.completed')).toHaveLength(1);
  });

  it('resumes after the instance stopped mid-answer: the checkpointed tool call is not made again', async () => {
    const t = retrievalTools();
    const midAnswer = deferred<void>();
    const suspend = new AbortController();
    async function* pieces() {
      yield 'Yu Gui is ';
      midAnswer.resolve();
      await new Promise<never>(() => undefined); // the rest never comes: the instance stops meanwhile
    }
    const first = new ScriptedChatModel([
      route('retrieve'),
      tools(toolCall('vector_retrieve', { query: '余归' })),
      tools(READY),
      { kind: 'stream', purpose: 'answer', respond: { deltas: pieces() } },
    ]);
    void midAnswer.promise.then(() => suspend.abort());
    const stopped = await ask(world, {
      question: 'Who is 余归?',
      model: first,
      tools: t,
      suspend: suspend.signal,
    });
    expect(stopped.fate).not.toBe('ack');
    expect(stopped.record.status).toBe('running');
    expect(stopped.record.steps).toHaveLength(1);

    const text = `${cite(YU_GUI, '青云宗的剑客', '余归 is a swordsman')}.`;
    const second = new ScriptedChatModel([tools(READY), answer(text)]);
    const resumed = await ask(world, {
      question: 'Who is 余归?',
      model: second,
      tools: t,
      goalId: stopped.record.goalId,
      attempt: 2,
    });
    expect(resumed.record.outcome).toMatchObject({ status: 'completed', response: text, steps: 1 });
    expect(resumed.record.outcome?.citations).toEqual([expect.objectContaining({ verified: true })]);
    expect(t.vector_retrieve.calls).toHaveLength(1);
    expect(resumed.deltas.every((d) => d.attempt > stopped.record.attempts! - 1)).toBe(true);
    second.assertDone();
  });
});
