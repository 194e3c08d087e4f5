import { toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';
import { z } from 'zod';
import { json } from '../../prompts/views';
import type { ToolDeps } from '../tool-deps';
import { documentsToolInput, invalidModelOutput, parseDocuments } from './documents';

export const DocumentGrades = z.strictObject({
  grades: z.array(
    z.strictObject({ doc_id: z.string(), relevant: z.boolean(), reason: z.string().max(2_000) }),
  ),
});

/** LLM relevance grading: keeps the documents relevant to the question, reports the dropped ones. */
export function gradeTool(deps: ToolDeps): HostedTool {
  return {
    name: 'grade',
    description:
      'Grade each retrieved document for relevance to the question with the model and drop the irrelevant ones. ' +
      'When too few documents remain, rewrite the query (query_rewrite) and retrieve again.',
    outputDescription:
      'JSON {"documents": [...relevant, in the given order], "dropped": [{doc_id, uri, reason}]}. A document the ' +
      'model did not grade is kept.',
    inputSchema: documentsToolInput(),
    timeoutMs: 120_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const question = String(params['question']);
      const documents = parseDocuments(params['documents']);
      const { grades } = await deps.llm.structured(
        ctx,
        {
          template: 'rag_grade',
          variables: { question, documents },
          instruction: 'Grade the documents.',
          purpose: 'grade',
          schema: DocumentGrades,
          schemaName: 'document_grades',
        },
        signal,
      );
      const ids = new Set(documents.map((d) => d.doc_id));
      if (grades.some((g) => !ids.has(g.doc_id)))
        return invalidModelOutput('grades name a document it was not given');
      const irrelevant = new Map(grades.filter((g) => !g.relevant).map((g) => [g.doc_id, g.reason]));
      const kept = documents.filter((d) => !irrelevant.has(d.doc_id));
      const dropped = documents
        .filter((d) => irrelevant.has(d.doc_id))
        .map((d) => ({ doc_id: d.doc_id, uri: d.uri, reason: irrelevant.get(d.doc_id) ?? '' }));
      ctx.info(`graded ${documents.length} document(s): ${kept.length} relevant, ${dropped.length} dropped`);
      return toolResult(json({ documents: kept, dropped }));
    },
  };
}
