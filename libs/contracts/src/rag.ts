import { z } from 'zod';
import { GoalId, Label, SchemaVersion, Text, Timestamp } from './common';

/**
 * The retrieval-augmented answers of the `rag` agent kind: the citations an answer carries, the live answer deltas and
 * the vocabulary its trace events share.
 */

/** Why a citation is not verified (absent when it is). */
export const CitationProblem = z.enum([
  'malformed',
  'unknown_document',
  'quote_too_short',
  'quote_in_other_document',
  'quote_not_found',
]);
export type CitationProblem = z.infer<typeof CitationProblem>;

/**
 * One citation of an answer: the document id it names, that document's resource URI (null when the id names no document
 * the answer was given), the quote, and whether the quote was found in that document. Never `verified` when it was not.
 */
export const AnswerCitation = z.strictObject({
  docId: z.string().max(200),
  uri: z.string().max(1_000).nullable(),
  quote: Text,
  verified: z.boolean(),
  problem: CitationProblem.optional(),
});
export type AnswerCitation = z.infer<typeof AnswerCitation>;

/** What happens to unverified citations: kept and flagged, stripped from the answer, or the answer fails. */
export const CitationPolicy = z.enum(['flag', 'strip', 'fail']);
export type CitationPolicy = z.infer<typeof CitationPolicy>;

/** How a question was handled: answered from the conversation (`direct`) or after retrieval (`retrieve`). */
export const RagPath = z.enum(['direct', 'retrieve']);
export type RagPath = z.infer<typeof RagPath>;

/**
 * Core event on `novelrag.goals.<id>.answer` while an answer is written: the next piece of its text. Live subscribers
 * only (not kept by any stream); `index` counts the pieces of one answer from 0, `attempt` is the pursuit that writes it
 * (a resumed pursuit starts a new answer). The whole answer is in the goal's `rag.answer` trace event.
 */
export const AnswerDelta = z.strictObject({
  schemaVersion: SchemaVersion,
  goalId: GoalId,
  attempt: z.number().int().min(1),
  index: z.number().int().nonnegative(),
  text: Text.min(1),
  at: Timestamp,
});
export type AnswerDelta = z.infer<typeof AnswerDelta>;

/** The documents a retrieval step produced, as the trace shows them (ids and URIs, no text). */
export const TracedDocument = z.strictObject({ docId: Label, uri: z.string().max(1_000) });
export type TracedDocument = z.infer<typeof TracedDocument>;
