import { type ChatStream, type ToolDefinition, spentUsageOf } from '@novelrag/agenturn';
import { fakeModelSuite } from './test/fake-model-suite';

const messages = [{ role: 'user', content: 'Who is 余归?' }] as const;
const tools: ToolDefinition[] = [
  {
    name: 'vector_retrieve',
    description: 'Search the repository',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
];

async function collect(stream: ChatStream): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of stream) pieces.push(piece);
  return pieces;
}

// The real SDK's streaming path (`stream: true`, server-sent chunks) against the fake server.
describe('OpenAIChatModel.stream (fake server, real SDK)', () => {
  const suite = fakeModelSuite({ models: { default: 'fake', byPurpose: { answer: 'answer-model' } } });
  const { events, model } = suite;

  afterEach(() => suite.server.assertDone());

  it('yields the pieces in order and resolves with the whole text and the usage of the last chunk', async () => {
    suite.server.once(
      { kind: 'text' },
      { chunks: ['余归', '是青云宗的', '剑客。', ' She is loyal.'] },
      { promptTokens: 42, completionTokens: 7 },
    );
    const stream = model().stream({ messages, purpose: 'answer' });
    expect(await collect(stream)).toEqual(['余归', '是青云宗的', '剑客。', ' She is loyal.']);
    const result = await stream.result;
    expect(result.value).toEqual({ content: '余归是青云宗的剑客。 She is loyal.', toolCalls: [] });
    expect(result.usage).toEqual({ promptTokens: 42, completionTokens: 7, totalTokens: 49 });
    expect(result.model).toBe('answer-model');
    const body = suite.server.chatRequests()[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      model: 'answer-model',
    });
    expect(events).toEqual([expect.objectContaining({ kind: 'stream', outcome: 'ok', attempts: 1 })]);
  });

  it('assembles streamed tool calls (arguments in pieces) with the text that came before them', async () => {
    suite.server.once(
      { kind: 'tools', toolNames: ['vector_retrieve'] },
      {
        chunks: ['Searching. '],
        toolCalls: [{ id: 'c1', name: 'vector_retrieve', arguments: { query: '余归 盟友' } }],
      },
    );
    const stream = model().stream({ messages, purpose: 'rag', tools, toolChoice: 'auto' });
    expect(await collect(stream)).toEqual(['Searching. ']);
    const { value } = await stream.result;
    expect(value).toEqual({
      content: 'Searching. ',
      toolCalls: [{ id: 'c1', name: 'vector_retrieve', arguments: { query: '余归 盟友' } }],
    });
  });

  it('retries an invalid tool call that streamed no text, with the problem fed back', async () => {
    suite.server.once(
      { kind: 'tools' },
      { chunks: [], toolCalls: [{ id: 'bad', name: 'vector_retrieve', arguments: '{oops' }] },
    );
    suite.server.once(
      { kind: 'tools' },
      { chunks: [], toolCalls: [{ id: 'ok', name: 'vector_retrieve', arguments: { query: 'q' } }] },
    );
    const { value, attempts } = await model().stream({
      messages,
      purpose: 'rag',
      tools,
      toolChoice: 'required',
    }).result;
    expect(attempts).toBe(2);
    expect(value.toolCalls).toEqual([{ id: 'ok', name: 'vector_retrieve', arguments: { query: 'q' } }]);
    const retry = suite.server.chatRequests()[1]?.body as { messages: { role: string }[] };
    expect(retry.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('does not retry once text reached the reader: the invalid answer fails with MODEL_OUTPUT_INVALID', async () => {
    suite.server.once(
      { kind: 'tools' },
      { chunks: ['Let me see'], toolCalls: [{ name: 'vector_retrieve', arguments: '{oops' }] },
    );
    const stream = model().stream({ messages, purpose: 'rag', tools });
    await expect(collect(stream)).rejects.toMatchObject({ code: 'MODEL_OUTPUT_INVALID' });
    await expect(stream.result).rejects.toMatchObject({ code: 'MODEL_OUTPUT_INVALID', attempts: 1 });
  });

  it('receives pieces before the answer is complete, and the caller signal cancels the open stream', async () => {
    suite.server.once({ kind: 'text' }, { chunks: ['first ', 'second '], end: 'hang' });
    const controller = new AbortController();
    const stream = model().stream({ messages, purpose: 'answer', signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    await expect(iterator.next()).resolves.toEqual({ done: false, value: 'first ' });
    await expect(iterator.next()).resolves.toEqual({ done: false, value: 'second ' });
    const pending = iterator.next();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(stream.result).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(events).toEqual([expect.objectContaining({ kind: 'stream', outcome: 'cancelled' })]);
  });

  it('abandons the request when the reader stops early', async () => {
    suite.server.once({ kind: 'text' }, { chunks: ['only '], end: 'hang' });
    const stream = model().stream({ messages, purpose: 'answer' });
    for await (const piece of stream) {
      expect(piece).toBe('only ');
      break;
    }
    await expect(stream.result).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('bounds a stalled stream by the call deadline', async () => {
    suite.server.once({ kind: 'text' }, { chunks: ['stalls '], end: 'hang' });
    const stream = model().stream({ messages, purpose: 'answer', timeoutMs: 300 });
    await expect(stream.result).rejects.toMatchObject({ code: 'TIMEOUT', retryable: true });
  });

  it('estimates the usage when the server sends none, so that a token budget still counts the answer', async () => {
    // Servers that ignore stream_options.include_usage end the stream without a usage chunk.
    const answer = 'An answer of some length, written by a server that reports no usage at all.';
    suite.server.once({ kind: 'text' }, { chunks: [answer], end: 'no_usage' });
    const stream = model().stream({ messages, purpose: 'answer' });
    expect(await collect(stream)).toEqual([answer]);
    const { usage } = await stream.result;
    expect(usage.completionTokens).toBeGreaterThanOrEqual(Math.ceil(answer.length / 4));
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(usage.totalTokens).toBe(usage.promptTokens + usage.completionTokens);
  });

  it('does not cut a slow answer that keeps coming: the deadline bounds each silence, not the whole stream', async () => {
    // A slow model writes one piece a second; the whole answer takes longer than the deadline, no silence does.
    const chunks = ['A ', 'slow ', 'model ', 'keeps ', 'writing.'];
    suite.server.once({ kind: 'text' }, { chunks, gapMs: 1_000 });
    const started = Date.now();
    const stream = model().stream({ messages, purpose: 'answer', timeoutMs: 3_000 });
    expect(await collect(stream)).toEqual(chunks);
    await expect(stream.result).resolves.toMatchObject({ value: { content: chunks.join('') } });
    expect(Date.now() - started).toBeGreaterThan(3_000); // the stream outlasted the deadline
  });

  it('maps a stream cut mid-answer to a retryable MODEL_UNAVAILABLE, and an HTTP error as for other calls', async () => {
    suite.server.once({ kind: 'text' }, { chunks: ['half '], end: 'drop' });
    await expect(model().stream({ messages, purpose: 'answer' }).result).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      retryable: true,
    });
    suite.server.once({ kind: 'text' }, { status: 429, message: 'slow down' });
    await expect(model().stream({ messages, purpose: 'answer' }).result).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      details: expect.objectContaining({ status: 429 }),
    });
  });

  it('charges what a failed stream had cost: the pieces before it broke off or was cancelled, not a refused request', async () => {
    const answer = 'A long first half of an answer that the provider generated and charged for, ';
    // The first piece is written at once, the cut comes after a gap: the client has the first piece before it.
    suite.server.once({ kind: 'text' }, { chunks: [answer, 'and then '], gapMs: 50, end: 'drop' });
    const broken = model().stream({ messages, purpose: 'answer' });
    await expect(broken[Symbol.asyncIterator]().next()).resolves.toEqual({ done: false, value: answer });
    const cut = await broken.result.catch((err: unknown) => err);
    expect(cut).toMatchObject({ code: 'MODEL_UNAVAILABLE', retryable: true });
    const spent = spentUsageOf(cut);
    expect(spent?.completionTokens).toBeGreaterThanOrEqual(Math.ceil(answer.length / 4));
    expect(spent?.promptTokens).toBeGreaterThan(0);
    // The usage event of the failed call says the same (a budget fed by either counts it).
    expect(events.at(-1)).toMatchObject({ outcome: 'unavailable', usage: spent });

    suite.server.once({ kind: 'text' }, { chunks: [answer], end: 'hang' });
    const controller = new AbortController();
    const stream = model().stream({ messages, purpose: 'answer', signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    await expect(iterator.next()).resolves.toEqual({ done: false, value: answer });
    controller.abort();
    const cancelled = await stream.result.catch((err: unknown) => err);
    expect(cancelled).toMatchObject({ code: 'CANCELLED' });
    expect(spentUsageOf(cancelled)?.completionTokens).toBeGreaterThan(0);

    suite.server.once({ kind: 'text' }, { status: 429, message: 'slow down' });
    const refused = await model()
      .stream({ messages, purpose: 'answer' })
      .result.catch((err: unknown) => err);
    expect(spentUsageOf(refused)).toBeUndefined();
  });

  it('rejects an empty answer after the validation retries', async () => {
    suite.server.always({ kind: 'text' }, { chunks: [] });
    await expect(
      model({ validationRetries: 1 }).stream({ messages, purpose: 'answer' }).result,
    ).rejects.toMatchObject({ code: 'MODEL_OUTPUT_INVALID', attempts: 2 });
    expect(suite.server.chatRequests()).toHaveLength(2);
  });
});
