import type { NatsConnection } from '@nats-io/transport-node';
import { AnswerDelta, Subjects } from '@novelrag/contracts';

/**
 * Relays a goal's live answer pieces (core subject, not stored) to one SSE connection as `event: answer.delta`, without
 * an id: they are not part of the resumable trace, and a client that reconnects reads the whole answer from the
 * goal's `rag.answer` trace event instead. Unreadable messages are dropped. Returns the unsubscribe.
 */
export function relayAnswerDeltas(
  nc: NatsConnection,
  goalId: string,
  write: (chunk: string) => void,
): () => void {
  const sub = nc.subscribe(Subjects.goalAnswer(goalId), {
    callback: (err, msg) => {
      if (err) return;
      let parsed: ReturnType<typeof AnswerDelta.safeParse>;
      try {
        parsed = AnswerDelta.safeParse(msg.json());
      } catch {
        return;
      }
      if (parsed.success && parsed.data.goalId === goalId)
        write(`event: answer.delta\ndata: ${JSON.stringify(parsed.data)}\n\n`);
    },
  });
  return () => sub.unsubscribe();
}
