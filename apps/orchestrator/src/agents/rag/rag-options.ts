import type { MemoryPort, UnverifiedCitationPolicy } from '@novelrag/agenturn';
import type { AnswerDeltaSink } from '../answer-stream';

export const DEFAULT_RAG_MAX_TOOL_CALLS = 8;

/** What the `rag` kind is built with. */
export interface RagAgentDeps {
  /** Tool calls one question may make before it is answered with what was found (limited). */
  readonly maxToolCalls: number;
  /** What happens to citations whose quote is not in the cited document. */
  readonly citationPolicy: UnverifiedCitationPolicy;
  /** The thread's conversation memory; null: none (the agent answers from the documents alone). */
  readonly memory: MemoryPort | null;
  /** Where the live pieces of an answer go. */
  readonly deltas: AnswerDeltaSink;
}
