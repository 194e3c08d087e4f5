import { toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';
import { z } from 'zod';
import { json } from '../../prompts/views';
import type { ToolDeps } from '../tool-deps';
import { questionParameter } from './documents';

export const QueryRewrite = z.strictObject({
  query: z.string().trim().min(1).max(2_000),
  reason: z.string().max(2_000),
});

/** LLM rewrite of a search query that found too little. */
export function queryRewriteTool(deps: ToolDeps): HostedTool {
  return {
    name: 'query_rewrite',
    description:
      'Write a better search query for the question with the model, when retrieval and grading left too few ' +
      'relevant documents. Pass the queries already tried so the new one differs.',
    outputDescription: 'JSON {"query": "...", "reason": "..."}.',
    inputSchema: {
      type: 'object',
      properties: {
        question: questionParameter,
        tried_queries: {
          type: 'array',
          maxItems: 20,
          items: { type: 'string', maxLength: 2000 },
          description: 'Queries already tried',
        },
      },
      required: ['question'],
      additionalProperties: false,
    },
    timeoutMs: 60_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const question = String(params['question']);
      const tried = z.array(z.string()).catch([]).parse(params['tried_queries']);
      const rewrite = await deps.llm.structured(
        ctx,
        {
          template: 'rag_query_rewrite',
          variables: { question, tried_queries: tried },
          instruction: 'Write the new search query.',
          purpose: 'query_rewrite',
          schema: QueryRewrite,
          schemaName: 'query_rewrite',
        },
        signal,
      );
      ctx.info('rewrote the search query');
      return toolResult(json(rewrite));
    },
  };
}
