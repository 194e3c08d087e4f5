// An answer written live: each piece the model streams goes out as an answer delta (`novelrag.goals.<id>.answer`,
// relayed to SSE clients as `answer.delta`) while the whole text is collected. Shared by the agent kinds that answer
// in prose (`rag`, `assistant`).
import type { NatsConnection } from '@nats-io/transport-node';
import type { ChatMessage } from '@novelrag/agenturn';
import { type AnswerDelta, SCHEMA_VERSION, Subjects } from '@novelrag/contracts';
import type { LoopPurpose, ModelCalls } from '../loop/model-calls';

/** Where the live pieces of an answer go (a core NATS subject per goal in production). Must never throw. */
export interface AnswerDeltaSink {
  publish(delta: AnswerDelta): void;
}

/** A sink that drops everything (no live subscribers to serve). */
export const NO_DELTAS: AnswerDeltaSink = { publish: () => undefined };

/** Publishes answer pieces on the goal's core answer subject (live subscribers only; a failed publish is dropped). */
export function natsAnswerDeltas(nc: NatsConnection): AnswerDeltaSink {
  return {
    publish(delta: AnswerDelta) {
      try {
        nc.publish(Subjects.goalAnswer(delta.goalId), JSON.stringify(delta));
      } catch {
        // best effort: the whole answer is in the trace; a closed connection must not fail the answer
      }
    },
  };
}

/** Whose answer the pieces are: the goal and the pursuit (attempt) writing it. */
export interface AnswerStream {
  readonly sink: AnswerDeltaSink;
  readonly goalId: string;
  readonly attempt: number;
}

/**
 * Longest answer kept and published. Well under the contracts' text bound (the answer is in the goal record twice,
 * as the agent's state and as the response, and in a trace event), also for CJK text at three bytes a character.
 */
export const MAX_ANSWER_CHARS = 60_000;

/** Ends an answer that was cut at MAX_ANSWER_CHARS. */
const CUT_NOTE = `\n\n[the answer was cut at ${MAX_ANSWER_CHARS} characters]`;

/**
 * Streams the model's text answer to `messages`, publishing each piece as the next delta (numbered from 0), and
 * returns the whole text. An answer longer than MAX_ANSWER_CHARS is cut there (the rest is neither published nor
 * kept; the stream is still read to its end, so its usage counts) and ends with a note saying so. Rejects with the
 * model's errors and with CANCELLED when the signal aborts.
 */
export async function streamAnswer(
  calls: ModelCalls,
  purpose: LoopPurpose,
  messages: readonly ChatMessage[],
  stream: AnswerStream,
  signal?: AbortSignal,
): Promise<string> {
  let index = 0;
  let published = 0;
  const publish = (text: string) =>
    stream.sink.publish({
      schemaVersion: SCHEMA_VERSION,
      goalId: stream.goalId,
      attempt: stream.attempt,
      index: index++,
      text,
      at: new Date().toISOString(),
    });
  const text = await calls.streamText(
    purpose,
    messages,
    (piece) => {
      if (published >= MAX_ANSWER_CHARS) return;
      const kept = piece.slice(0, MAX_ANSWER_CHARS - published);
      published += kept.length;
      if (kept !== '') publish(kept);
    },
    signal,
  );
  if (text.length <= MAX_ANSWER_CHARS) return text;
  publish(CUT_NOTE);
  return text.slice(0, MAX_ANSWER_CHARS) + CUT_NOTE;
}
