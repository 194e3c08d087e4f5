import { z } from 'zod';
import { GoalId, SchemaVersion, ThreadId, Timestamp } from './common';

/**
 * Thread memory served by the resource-service (`novelrag.memory.*`): the session summary of a thread, episodic
 * memories (past questions and answers) and semantic memories (facts the user stated), embedded and searched per
 * thread. Every reply travels inside `Reply<T>` (`replyOf`); requests are strict and carry `schemaVersion`.
 */

export const MAX_MEMORY_QUERY_CHARS = 2_000;
export const MAX_MEMORY_QUESTION_CHARS = 8_000;
export const MAX_MEMORY_ANSWER_CHARS = 32_000;
export const MAX_MEMORY_SUMMARY_CHARS = 8_000;
export const MAX_MEMORY_FACT_CHARS = 1_000;
export const MAX_MEMORY_FACTS = 20;
export const MAX_MEMORY_LIMIT = 20;
export const DEFAULT_MEMORY_LIMIT = 5;
/** An episodic memory's text: `Q: <question>` and `A: <answer>` on their own lines. */
export const MAX_MEMORY_TEXT_CHARS = MAX_MEMORY_QUESTION_CHARS + MAX_MEMORY_ANSWER_CHARS + 8;

/** What a memory remembers: an exchange (`episodic`) or a fact the user stated (`semantic`). */
export const MemoryKind = z.enum(['episodic', 'semantic']);
export type MemoryKind = z.infer<typeof MemoryKind>;

/** A memory's id: stable for the same thread, goal and position, so storing an exchange again replaces it. */
export const MemoryId = z
  .string()
  .regex(/^mem-[0-9a-f]{8,64}$/, 'memory id must be mem- and 8-64 hex digits');
export type MemoryId = z.infer<typeof MemoryId>;

export const MemoryItem = z.strictObject({
  id: MemoryId,
  threadId: ThreadId,
  kind: MemoryKind,
  /** Readable text: `Q: … / A: …` for an exchange, the fact itself for a semantic memory. */
  text: z.string().max(MAX_MEMORY_TEXT_CHARS),
  /** The goal that produced it, when known. */
  goalId: GoalId.optional(),
  createdAt: Timestamp,
  /** Relevance to the query that retrieved it (higher is better, comparable within one reply only). */
  score: z.number().optional(),
});
export type MemoryItem = z.infer<typeof MemoryItem>;

const Summary = z.string().max(MAX_MEMORY_SUMMARY_CHARS);

/** `memory.summary`: the thread's session summary, null when it has none. */
export const MemorySummaryRequest = z.strictObject({ schemaVersion: SchemaVersion, threadId: ThreadId });
export type MemorySummaryRequest = z.infer<typeof MemorySummaryRequest>;
export const MemorySummaryReply = z.strictObject({
  schemaVersion: SchemaVersion,
  summary: Summary.nullable(),
});
export type MemorySummaryReply = z.infer<typeof MemorySummaryReply>;

/** `memory.retrieve`: the thread's memories most relevant to `query` (hybrid search), best first. */
export const MemoryRetrieveRequest = z.strictObject({
  schemaVersion: SchemaVersion,
  threadId: ThreadId,
  query: z.string().trim().min(1).max(MAX_MEMORY_QUERY_CHARS),
  /** Default DEFAULT_MEMORY_LIMIT. */
  limit: z.number().int().min(1).max(MAX_MEMORY_LIMIT).optional(),
});
export type MemoryRetrieveRequest = z.infer<typeof MemoryRetrieveRequest>;
export const MemoryRetrieveReply = z.strictObject({
  schemaVersion: SchemaVersion,
  items: z.array(MemoryItem).max(MAX_MEMORY_LIMIT),
});
export type MemoryRetrieveReply = z.infer<typeof MemoryRetrieveReply>;

/**
 * `memory.store`: keeps one answered question of a goal (and the facts the user stated in it), replacing what the
 * same goal stored before; `summary` replaces the thread's session summary (absent: the previous one stays).
 */
export const MemoryStoreRequest = z.strictObject({
  schemaVersion: SchemaVersion,
  threadId: ThreadId,
  goalId: GoalId,
  question: z.string().trim().min(1).max(MAX_MEMORY_QUESTION_CHARS),
  answer: z.string().max(MAX_MEMORY_ANSWER_CHARS),
  summary: Summary.optional(),
  facts: z.array(z.string().trim().min(1).max(MAX_MEMORY_FACT_CHARS)).max(MAX_MEMORY_FACTS).optional(),
});
export type MemoryStoreRequest = z.infer<typeof MemoryStoreRequest>;
/** How many memories the goal now has in the thread (the exchange and its facts; the summary not counted). */
export const MemoryStoreReply = z.strictObject({
  schemaVersion: SchemaVersion,
  stored: z.number().int().nonnegative(),
});
export type MemoryStoreReply = z.infer<typeof MemoryStoreReply>;

/** `memory.forget`: removes everything the thread remembers; `removed` counts the summary as one. */
export const MemoryForgetRequest = z.strictObject({ schemaVersion: SchemaVersion, threadId: ThreadId });
export type MemoryForgetRequest = z.infer<typeof MemoryForgetRequest>;
export const MemoryForgetReply = z.strictObject({
  schemaVersion: SchemaVersion,
  removed: z.number().int().nonnegative(),
});
export type MemoryForgetReply = z.infer<typeof MemoryForgetReply>;
