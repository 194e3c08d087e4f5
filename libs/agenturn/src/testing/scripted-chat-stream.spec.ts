import { CancelledError } from '../errors/errors';
import type { ChatMessage, ChatStream, ToolDefinition } from '../model/chat-model';
import { chatStream } from '../model/chat-stream';
import { deferred } from './deferred';
import { ScriptedChatModel, ScriptMismatchError, streamingPieces } from './scripted-chat-model';

const messages: ChatMessage[] = [{ role: 'user', content: 'Who is 余归?' }];
const tools: ToolDefinition[] = [
  { name: 'vector_retrieve', description: 'find', parameters: { type: 'object' } },
];

async function collect(stream: ChatStream): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of stream) pieces.push(piece);
  return pieces;
}

/** An async iterable whose pieces the test releases one by one. */
function gated(): { readonly source: AsyncIterable<string>; send(piece: string): void; end(): void } {
  const queue: { piece?: string; end?: true }[] = [];
  let wake = deferred();
  return {
    source: (async function* () {
      for (;;) {
        const item = queue.shift();
        if (item === undefined) {
          await wake.promise;
          wake = deferred();
          continue;
        }
        if (item.end) return;
        yield item.piece!;
      }
    })(),
    send: (piece) => {
      queue.push({ piece });
      wake.resolve();
    },
    end: () => {
      queue.push({ end: true });
      wake.resolve();
    },
  };
}

describe('ScriptedChatModel.stream', () => {
  it('streams a scripted text in word-sized pieces, CJK runs cut short, and resolves with the whole reply', async () => {
    const text = 'Yu Gui is 青云宗的大弟子，剑法第一。';
    const model = new ScriptedChatModel([{ kind: 'stream', purpose: 'answer', respond: text }]);
    const stream = model.stream({ messages, purpose: 'answer' });
    const pieces = await collect(stream);
    expect(pieces.join('')).toBe(text);
    expect(pieces).toEqual(streamingPieces(text));
    expect(pieces.length).toBeGreaterThan(4);
    expect(pieces.every((p) => Array.from(p).length <= 8)).toBe(true);
    const result = await stream.result;
    expect(result.value).toEqual({ content: text, toolCalls: [] });
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    expect(model.calls[0]).toMatchObject({ kind: 'stream', purpose: 'answer', toolNames: [] });
    model.assertDone();
  });

  it('returns tool calls with exact pieces, and result works without reading the stream', async () => {
    const call = { id: 'c1', name: 'vector_retrieve', arguments: { query: '余归' } };
    const model = new ScriptedChatModel([
      { kind: 'stream', respond: { deltas: ['Let me ', 'look.'], toolCalls: [call] } },
    ]);
    const { value } = await model.stream({ messages, purpose: 'rag', tools, toolChoice: 'auto' }).result;
    expect(value).toEqual({ content: 'Let me look.', toolCalls: [call] });
    expect(model.calls[0]?.toolNames).toEqual(['vector_retrieve']);
  });

  it('rejects a scripted call of a tool that was not offered, and a kind mismatch', async () => {
    const model = new ScriptedChatModel([
      { kind: 'stream', respond: { deltas: [], toolCalls: [{ id: 'x', name: 'grade', arguments: {} }] } },
    ]);
    await expect(model.stream({ messages, purpose: 'rag', tools }).result).rejects.toBeInstanceOf(
      ScriptMismatchError,
    );
    const wrongKind = new ScriptedChatModel([{ kind: 'text', respond: 'hi' }]);
    const stream = wrongKind.stream({ messages, purpose: 'rag' });
    await expect(collect(stream)).rejects.toBeInstanceOf(ScriptMismatchError);
    await expect(stream.result).rejects.toBeInstanceOf(ScriptMismatchError);
  });

  it('hands each piece to the reader before the next one exists (true streaming)', async () => {
    const gate = gated();
    const model = new ScriptedChatModel([{ kind: 'stream', respond: { deltas: gate.source } }]);
    const iterator = model.stream({ messages, purpose: 'answer' })[Symbol.asyncIterator]();
    gate.send('余归');
    await expect(iterator.next()).resolves.toEqual({ done: false, value: '余归' });
    gate.send('是剑客。');
    await expect(iterator.next()).resolves.toEqual({ done: false, value: '是剑客。' });
    gate.end();
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });

  it('cancels while waiting for a piece when the caller aborts', async () => {
    const gate = gated();
    const controller = new AbortController();
    const model = new ScriptedChatModel([{ kind: 'stream', respond: { deltas: gate.source } }]);
    const stream = model.stream({ messages, purpose: 'answer', signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    gate.send('part');
    await expect(iterator.next()).resolves.toEqual({ done: false, value: 'part' });
    const pending = iterator.next();
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    await expect(stream.result).rejects.toBeInstanceOf(CancelledError);
  });

  it('abandons the call when the reader leaves the loop early, and refuses a second reader', async () => {
    const gate = gated();
    const model = new ScriptedChatModel([{ kind: 'stream', respond: { deltas: gate.source } }]);
    const stream = model.stream({ messages, purpose: 'answer' });
    gate.send('first');
    for await (const piece of stream) {
      expect(piece).toBe('first');
      break;
    }
    await expect(stream.result).rejects.toBeInstanceOf(CancelledError);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });

  it('does not consume an entry when the signal is already aborted', async () => {
    const model = new ScriptedChatModel([{ kind: 'stream', respond: 'hi' }]);
    const stream = model.stream({ messages, purpose: 'answer', signal: AbortSignal.abort() });
    await expect(stream.result).rejects.toBeInstanceOf(CancelledError);
    expect(model.remaining).toBe(1);
  });
});

describe('chatStream', () => {
  it('delivers a failure after partial text to the reader and to result alike', async () => {
    const boom = new Error('broke off');
    const stream = chatStream(async (push) => {
      push('partial ');
      push('');
      throw boom;
    });
    const pieces: string[] = [];
    await expect(
      (async () => {
        for await (const piece of stream) pieces.push(piece);
      })(),
    ).rejects.toBe(boom);
    expect(pieces).toEqual(['partial ']);
    await expect(stream.result).rejects.toBe(boom);
  });
});
