import { type MemoryItem, toolResult } from '@novelrag/agenturn';
import { DEFAULT_MEMORY_LIMIT, MAX_MEMORY_LIMIT, MAX_MEMORY_QUERY_CHARS } from '@novelrag/contracts';
import type { HostedTool } from '@novelrag/tool-kit';
import { json } from '../../prompts/views';
import type { ToolDeps } from '../tool-deps';
import type { RetrievedDocument } from './documents';

/** The URI a memory is cited by (not a resource: memories live outside the repository's tree). */
export const memoryUri = (threadId: string, id: string): string => `memory://${threadId}/${id}`;

/** A memory as a citable document: its id as doc_id, readable text (a fact says it is one). */
export function memoryDocument(item: MemoryItem): RetrievedDocument {
  return {
    doc_id: item.id,
    uri: memoryUri(item.threadId, item.id),
    text: item.kind === 'semantic' ? `Stated by the user: ${item.text}` : item.text,
    ...(item.score !== undefined ? { score: item.score } : {}),
  };
}

/** The conversation thread's memories relevant to a query (past questions and answers, facts the user stated). */
export function memoryRetrieveTool(deps: ToolDeps): HostedTool {
  return {
    name: 'memory_retrieve',
    description:
      'Retrieve what this conversation remembers that is relevant to a query: earlier questions with their answers, ' +
      'and facts the user stated. Use it for follow-up questions ("and her sect?") and for what the user said before.',
    outputDescription:
      'JSON {"documents": [{doc_id, uri, score, text}]}, most relevant first; doc_id is the memory id (mem-…), stable ' +
      'across calls; empty when the conversation remembers nothing (or the goal belongs to no conversation).',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_MEMORY_QUERY_CHARS,
          description: 'What to recall',
        },
        limit: { type: 'integer', minimum: 1, maximum: MAX_MEMORY_LIMIT, default: DEFAULT_MEMORY_LIMIT },
      },
      required: ['query'],
      additionalProperties: false,
    },
    timeoutMs: 30_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const { threadId } = ctx.invocation;
      if (threadId === undefined) {
        ctx.info('no conversation thread: nothing to recall');
        return toolResult(json({ documents: [] }));
      }
      const limit = typeof params['limit'] === 'number' ? params['limit'] : DEFAULT_MEMORY_LIMIT;
      const items = await deps.memory.retrieveRelevant(String(params['query']), threadId, {
        limit,
        ...(signal ? { signal } : {}),
      });
      const documents = items.map(memoryDocument);
      ctx.info(`recalled ${documents.length} memory item(s)`);
      return toolResult(json({ documents }));
    },
  };
}
