// The conversation memory as the `rag` agent uses it: read once per pursuit (the session summary and the memories
// relevant to the question), and after answering, the exchange stored with a refreshed summary and the facts the user
// stated (both written by the model). Memory is an aid: when it fails the agent answers without it.
import type { ExecutionContext, MemoryPort } from '@novelrag/agenturn';
import { contentDirective } from '@novelrag/llm';
import { z } from 'zod';
import type { ModelCalls } from '../../loop/model-calls';

export const MEMORY_RETRIEVE_LIMIT = 5;

/** What the prompts show of the conversation. */
export interface MemoryView {
  readonly summary: string | null;
  readonly memories: readonly string[];
}

export const NO_MEMORY: MemoryView = { summary: null, memories: [] };

const MemoryUpdate = z.object({
  summary: z.string().min(1).max(4_000),
  facts: z.array(z.string().min(1).max(1_000)).max(20),
});

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reads the thread's memory for a question; an unavailable memory reads as empty (with a warning). */
export async function recall(
  memory: MemoryPort | null,
  question: string,
  threadId: string,
  log: ExecutionContext,
  signal: AbortSignal,
): Promise<MemoryView> {
  if (!memory) return NO_MEMORY;
  try {
    const [summary, items] = await Promise.all([
      memory.sessionSummary(threadId, signal),
      memory.retrieveRelevant(question, threadId, { limit: MEMORY_RETRIEVE_LIMIT, signal }),
    ]);
    return { summary, memories: items.map((i) => i.text) };
  } catch (err) {
    if (signal.aborted) throw err;
    log.warning(`memory not read, answering without it: ${errorText(err)}`);
    return NO_MEMORY;
  }
}

export interface RememberInput {
  readonly memory: MemoryPort | null;
  readonly calls: ModelCalls;
  readonly lang: string;
  readonly beliefs: readonly string[];
  readonly threadId: string;
  readonly goalId: string;
  readonly question: string;
  readonly answer: string;
  readonly previous: MemoryView;
  readonly log: ExecutionContext;
  readonly signal: AbortSignal;
}

/** Stores the exchange with a refreshed summary and the user's facts. Failures only warn: the answer stands. */
export async function remember(input: RememberInput): Promise<void> {
  const { memory } = input;
  if (!memory) return;
  try {
    const update = await input.calls.structured(
      'rag_memory',
      {
        template: 'rag_memory_update',
        directive: contentDirective(input.lang, input.beliefs),
        instruction: 'Update the memory of this conversation.',
        variables: {
          session_summary: input.previous.summary,
          question: input.question,
          answer: input.answer,
        },
      },
      MemoryUpdate,
      'memory_update',
      input.signal,
    );
    await memory.storeInteraction(
      {
        threadId: input.threadId,
        goalId: input.goalId,
        question: input.question,
        answer: input.answer,
        summary: update.summary,
        facts: update.facts,
      },
      input.signal,
    );
  } catch (err) {
    if (input.signal.aborted) throw err;
    input.log.warning(`memory not updated: ${errorText(err)}`);
  }
}
