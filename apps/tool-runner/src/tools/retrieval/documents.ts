import { createHash } from 'node:crypto';
import { type ToolOutput, toolError } from '@novelrag/agenturn';
import type { ElementContext } from '@novelrag/contracts';
import { z } from 'zod';

/** A retrieved document as the retrieval tools pass it around (and the answer prompt shows it). */
export const RetrievedDocument = z.strictObject({
  doc_id: z.string().min(1).max(64),
  uri: z.string().min(1).max(1_000),
  text: z.string().max(20_000),
  score: z.number().optional(),
});
export type RetrievedDocument = z.infer<typeof RetrievedDocument>;

export const MAX_DOCUMENTS = 50;

/** The JSON Schema of a `documents` parameter: what `vector_retrieve` returned (or a subset of it). */
export const documentsParameter = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_DOCUMENTS,
  description: 'Documents as vector_retrieve returned them: {doc_id, uri, text}',
  items: {
    type: 'object',
    properties: {
      doc_id: { type: 'string', minLength: 1, maxLength: 64 },
      uri: { type: 'string', minLength: 1, maxLength: 1000 },
      text: { type: 'string', maxLength: 20000 },
      score: { type: 'number' },
    },
    required: ['doc_id', 'uri', 'text'],
    additionalProperties: false,
  },
} as const;

export const questionParameter = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  description: 'The question being answered',
} as const;

/**
 * The id a document is cited by: derived from its URI alone, so the same resource has the same id in every call and
 * every answer of a conversation (short, and safe inside an XML attribute whatever the URI holds).
 */
export function docIdOf(uri: string): string {
  return `doc_${createHash('sha256').update(uri).digest('hex').slice(0, 10)}`;
}

const label = (key: string) => key.replace(/[_-]+/g, ' ').trim();

function valueText(value: unknown, indent: string): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) return value.map(String).join(', ');
    return value.map((v) => `\n${indent}- ${valueText(v, `${indent}  `)}`).join('');
  }
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `\n${indent}${label(k)}: ${valueText(v, `${indent}  `)}`)
      .join('');
  }
  return String(value);
}

/**
 * The element as prose-like lines the model (and the quote check) can read: one `label: value` line per property
 * (nested values indented), then its relations and child ids. No JSON punctuation, so quotes copy cleanly.
 */
export function elementText(element: ElementContext): string {
  const lines = Object.entries(element.properties).map(([k, v]) => `${label(k)}: ${valueText(v, '  ')}`);
  for (const [target, relations] of Object.entries(element.relationships)) {
    lines.push(`relation to ${target}: ${relations.join('; ')}`);
  }
  for (const [key, ids] of Object.entries(element.childIds)) {
    if (ids.length > 0) lines.push(`${label(key)}: ${ids.join(', ')}`);
  }
  return lines.join('\n');
}

/** The documents parameter, parsed (the host validated it against the schema; this gives it a type). */
export function parseDocuments(value: unknown): RetrievedDocument[] {
  return z.array(RetrievedDocument).parse(value);
}

/** The tool error for model output that parsed but does not fit the documents asked about. */
export function invalidModelOutput(what: string): ToolOutput {
  return toolError(`the model's ${what}`, 'MODEL_OUTPUT_INVALID');
}

/** The input schema of a tool over a question and documents (rerank, grade), with any extra properties. */
export function documentsToolInput(extra: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    type: 'object',
    properties: { question: questionParameter, documents: documentsParameter, ...extra },
    required: ['question', 'documents'],
    additionalProperties: false,
  };
}
