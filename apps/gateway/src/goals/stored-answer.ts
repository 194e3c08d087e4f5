import type { GoalStore } from '@novelrag/bus';
import { BusError } from '@novelrag/bus';
import type { InteractionAnswer, PendingInteraction } from '@novelrag/contracts';
import { ApiError } from '../http/api-error';

/**
 * Stores `answer` with the goal's pending question (compare-and-swap on the record, so it never overwrites another
 * answer or a question that replaced it). Repeating the same answer is accepted (a client retry); a different answer to
 * an answered question, or an answer to a question that is not pending, is INTERACTION_NOT_PENDING.
 */
export async function storeAnswer(store: GoalStore, answer: InteractionAnswer): Promise<void> {
  const body = 'approved' in answer ? { approved: answer.approved } : { text: answer.text };
  await store
    .mutate(answer.goalId, (goal) => {
      const pending = goal.pendingInteraction;
      if (pending?.interactionId !== answer.interactionId) {
        throw notPending(answer, pending?.interactionId ?? null);
      }
      if (pending.answer) {
        if (JSON.stringify(pending.answer) === JSON.stringify(body)) return null; // the same answer again
        throw notPending(answer, pending.interactionId, 'was already answered');
      }
      const answered: PendingInteraction = {
        ...pending,
        answer: body,
        ...(answer.answeredBy ? { answeredBy: answer.answeredBy } : {}),
        answeredAt: answer.at ?? new Date().toISOString(),
      };
      return { ...goal, pendingInteraction: answered, updatedAt: new Date().toISOString() };
    })
    .catch((err: unknown) => {
      if (err instanceof BusError && err.code === 'NOT_FOUND') {
        throw new ApiError('NOT_FOUND', `goal ${answer.goalId} does not exist`, { goalId: answer.goalId });
      }
      throw err;
    });
}

function notPending(answer: InteractionAnswer, pending: string | null, why = 'is not pending'): ApiError {
  return new ApiError(
    'INTERACTION_NOT_PENDING',
    `goal ${answer.goalId}: interaction ${answer.interactionId} ${why}`,
    { pending },
  );
}
