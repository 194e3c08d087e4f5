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
  /** `done` (default): finish, usage chunk, `[DONE]`; `no_usage`: the same without usage; `hang`: stop sending, keep the response open; `drop`: cut it. */
  readonly end?: FakeStreamEnd;
  /** A pause before every text piece after the first (default none: all chunks at once). */
  readonly gapMs?: number;
}

/** The pieces a text is streamed in when the reply does not give them: words, long runs cut short. */
export function piecesOf(text: string | null): string[] {
  return text === null || text === '' ? [] : streamingPieces(text);
}

/** Writes the chunks of one streamed answer, in the order and shape the OpenAI API sends them. */
export function sendStream(res: ServerResponse, parts: StreamParts): void {
  if (res.destroyed || res.headersSent) return;
  const frames = framesOf(parts);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (parts.gapMs && parts.pieces.length > 1) {
    void sendPaced(res, frames, parts.end ?? 'done', parts.gapMs);
    return;
  }
  for (const frame of frames) res.write(unmarked(frame));
  finish(res, parts.end ?? 'done');
}

/** The opening chunk and the first piece at once, every further piece after `gapMs`, then the rest. */
async function sendPaced(
  res: ServerResponse,
  frames: string[],
  end: FakeStreamEnd,
  gapMs: number,
): Promise<void> {
  // frames: the opening chunk, one per text piece, then the rest (refusal, tool calls, finish, usage).
  res.write(frames.slice(0, 2).join(''));
  for (const frame of frames.slice(2)) {
    if (frame.startsWith(PIECE)) {
      await new Promise((resolve) => setTimeout(resolve, gapMs));
      if (res.destroyed) return;
    }
    res.write(unmarked(frame));
  }
  finish(res, end);
}

/** Marks a text piece's frame (for pacing); never sent. */
const PIECE = '\u0000piece\u0000';

function unmarked(frame: string): string {
  return frame.startsWith(PIECE) ? frame.slice(PIECE.length) : frame;
}

function finish(res: ServerResponse, end: FakeStreamEnd): void {
  if (end === 'drop') res.destroy();
  else if (end === 'done' || end === 'no_usage') res.end('data: [DONE]\n\n');
}

/** The server-sent events of the answer, `[DONE]` excepted; text pieces after the first are marked with PIECE. */
function framesOf(parts: StreamParts): string[] {
  const id = nextId('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: parts.model, choices, ...extra })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  const frames = [delta({ role: 'assistant', content: '' })];
  parts.pieces.forEach((piece, i) => frames.push((i > 0 ? PIECE : '') + delta({ content: piece })));
  if (parts.refusal !== undefined) frames.push(delta({ refusal: parts.refusal }));
  (parts.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const half = Math.floor(args.length / 2);
    const callId = call.id ?? nextId('call');
    frames.push(
      delta({
        tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of [args.slice(0, half), args.slice(half)]) {
      if (piece !== '') frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  const end = parts.end ?? 'done';
  if (end === 'done' || end === 'no_usage') {
    const finishReason = (parts.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop';
    frames.push(delta({}, finishReason));
    if (end === 'done') frames.push(chunk([], { usage: usageOf(parts.usage) }));
  }
  return frames;
}
