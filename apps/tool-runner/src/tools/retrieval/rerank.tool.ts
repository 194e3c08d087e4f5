import { toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';
import { z } from 'zod';
import { json } from '../../prompts/views';
import type { ToolDeps } from '../tool-deps';
import { MAX_DOCUMENTS, documentsToolInput, invalidModelOutput, parseDocuments } from './documents';

export const DocumentRanking = z.strictObject({ ranking: z.array(z.string()) });

/** LLM reranking of a document list for a question. */
export function rerankTool(deps: ToolDeps): HostedTool {
  return {
    name: 'rerank',
    description:
      'Reorder retrieved documents by how useful each is for answering the question, most useful first, using the ' +
      'model. Use it when a search returned many documents.',
    outputDescription: 'JSON {"documents": [...]}: the same documents, best first, cut to top_k when given.',
    inputSchema: documentsToolInput({
      top_k: { type: 'integer', minimum: 1, maximum: MAX_DOCUMENTS, description: 'Keep only the best top_k' },
    }),
    timeoutMs: 120_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const question = String(params['question']);
      const documents = parseDocuments(params['documents']);
      const topK = typeof params['top_k'] === 'number' ? params['top_k'] : documents.length;
      const { ranking } = await deps.llm.structured(
        ctx,
        {
          template: 'rag_rerank',
          variables: { question, documents },
          instruction: 'Rank the documents.',
          purpose: 'rerank',
          schema: DocumentRanking,
          schemaName: 'document_ranking',
        },
        signal,
      );
      const byId = new Map(documents.map((d) => [d.doc_id, d]));
      if (ranking.some((id) => !byId.has(id)))
        return invalidModelOutput('ranking names a document it was not given');
      // Ranked first (each once); any the model left out keep their order after them.
      const order = [...new Set([...ranking, ...documents.map((d) => d.doc_id)])];
      const ranked = order.flatMap((id) => byId.get(id) ?? []).slice(0, topK);
      ctx.info(`reranked ${documents.length} document(s), kept ${ranked.length}`);
      return toolResult(json({ documents: ranked }));
    },
  };
}
