// The answer of a `rag` goal: the XML answer prompt over the documents held and the conversation's memory, streamed
// (each piece published live as an answer delta), then its citations verified under the configured policy.
import { type UnverifiedCitationPolicy, type VerifiedAnswer, verifyCitations } from '@novelrag/agenturn';
import type { AnswerCitation } from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import type { ModelCalls } from '../../loop/model-calls';
import { type AnswerDeltaSink, streamAnswer } from '../answer-stream';
import type { MemoryView } from './rag-memory';
import type { RagDocument } from './rag-state';

export interface AnswerInput {
  readonly calls: ModelCalls;
  readonly sink: AnswerDeltaSink;
  readonly goalId: string;
  readonly attempt: number;
  readonly lang: string;
  readonly beliefs: readonly string[];
  readonly question: string;
  readonly documents: readonly RagDocument[];
  readonly memory: MemoryView;
  readonly policy: UnverifiedCitationPolicy;
  readonly signal: AbortSignal;
}

export interface RagAnswer {
  /** The answer as kept (unverified citations removed under `strip`). */
  readonly text: string;
  readonly citations: AnswerCitation[];
  readonly unverified: number;
}

/**
 * Writes the answer. Rejects with the model's errors, with CANCELLED when the signal aborts, and with
 * MODEL_OUTPUT_INVALID when the policy is `fail` and a citation is not verified.
 */
export async function writeAnswer(input: AnswerInput): Promise<RagAnswer> {
  const messages = input.calls.messages({
    template: 'rag_answer',
    directive: contentDirective(input.lang, input.beliefs),
    instruction: 'Answer the question, following the output rules.',
    variables: {
      question: input.question,
      documents: input.documents,
      session_summary: input.memory.summary,
      memories: input.memory.memories,
    },
  });
  const text = await streamAnswer(input.calls, 'rag_answer', messages, input, input.signal);
  const sources = input.documents.map((d) => ({ docId: d.doc_id, uri: d.uri, text: d.text }));
  const verified = verifyCitations(text, sources, input.policy);
  return {
    text: verified.answer,
    citations: answerCitationsOf(verified.citations),
    unverified: verified.unverified,
  };
}

/** `AnswerCitation.docId`'s bound. */
const MAX_CITED_DOC_ID_CHARS = 200;

/**
 * The citations as the contract carries them (goal outcome, `rag.answer`). The doc id of a citation naming no document
 * held is the model's own text, of any length: it is clipped to the contract's bound, else the goal record (and the
 * trace event, which readers would skip) would not match its schema.
 */
export function answerCitationsOf(citations: VerifiedAnswer['citations']): AnswerCitation[] {
  return citations.map((c) => ({
    docId: c.docId.slice(0, MAX_CITED_DOC_ID_CHARS),
    uri: c.uri,
    quote: c.quote,
    verified: c.verified,
    ...(c.problem ? { problem: c.problem } : {}),
  }));
}
