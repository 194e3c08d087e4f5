// How the fake OpenAI server answers a request made with `stream: true`: server-sent `chat.completion.chunk`s.
import type { ServerResponse } from 'node:http';
import { streamingPieces } from '@novelrag/agenturn/testing';
import { nextId, usageOf } from './fake-openai-responses';
import type { FakeStreamEnd, FakeToolCall, FakeUsage } from './fake-openai-types';

export interface StreamParts {
  readonly model: string;
  /** The text pieces, each sent as its own chunk. */
  readonly pieces: readonly string[];
  readonly refusal?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  readonly usage: FakeUsage;
  /** `done` (default): finish, usage chunk, `[DONE]`; `hang`: stop sending, keep the response open; `drop`: cut it. */
  readonly end?: FakeStreamEnd;
}

/** The pieces a text is streamed in when the reply does not give them: words, long runs cut short. */
export function piecesOf(text: string | null): string[] {
  return text === null || text === '' ? [] : streamingPieces(text);
}

/** Writes the chunks of one streamed answer, in the order and shape the OpenAI API sends them. */
export function sendStream(res: ServerResponse, parts: StreamParts): void {
  if (res.destroyed || res.headersSent) return;
  const id = nextId('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: parts.model, choices, ...extra })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(delta({ role: 'assistant', content: '' }));
  for (const piece of parts.pieces) res.write(delta({ content: piece }));
  if (parts.refusal !== undefined) res.write(delta({ refusal: parts.refusal }));
  (parts.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const half = Math.floor(args.length / 2);
    const callId = call.id ?? nextId('call');
    res.write(
      delta({
        tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of [args.slice(0, half), args.slice(half)]) {
      if (piece !== '') res.write(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  switch (parts.end ?? 'done') {
    case 'hang':
      return;
    case 'drop':
      res.destroy();
      return;
    case 'done': {
      const finish = (parts.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop';
      res.write(delta({}, finish));
      res.write(chunk([], { usage: usageOf(parts.usage) }));
      res.end('data: [DONE]\n\n');
    }
  }
}
