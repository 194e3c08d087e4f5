// The retrieval tools as the `rag` agent offers them to its model, and the tool calls it turns into steps. The model
// names what to search; the agent itself passes the question and the documents held (the model never copies them).
import {
  type OperationPlan,
  type ToolCallRequest,
  type ToolCatalog,
  type ToolDefinition,
  operationPlan,
} from '@novelrag/agenturn';
import { RAG_TOOLS, type RagState, type RagToolName } from './rag-state';

const NO_PARAMS = { type: 'object', properties: {}, additionalProperties: false } as const;
const TOP_K = {
  type: 'object',
  properties: {
    top_k: { type: 'integer', minimum: 1, maximum: 50, description: 'Keep this many (optional)' },
  },
  additionalProperties: false,
} as const;

/** What the model sees of a tool whose inputs the agent supplies. */
const AGENT_FILLED: Partial<
  Record<RagToolName, { description: string; parameters: Record<string, unknown> }>
> = {
  rerank: {
    description: 'Order the documents held now by how useful they are for the question, most useful first.',
    parameters: TOP_K,
  },
  grade: {
    description: 'Grade the documents held now against the question and drop the ones that do not help.',
    parameters: NO_PARAMS,
  },
  query_rewrite: {
    description: 'Get a better search query for the question when the searches so far found too little.',
    parameters: NO_PARAMS,
  },
};

/** The retrieval tools the catalog can call now, as the model is offered them. */
export function ragToolDefinitions(catalog: ToolCatalog): ToolDefinition[] {
  return RAG_TOOLS.flatMap((name) => {
    const tool = catalog.isAvailable(name) ? catalog.get(name) : undefined;
    if (!tool) return [];
    const filled = AGENT_FILLED[name];
    return [
      filled ? { name, ...filled } : { name, description: tool.description, parameters: tool.inputSchema },
    ];
  });
}

const reasonOf = (call: ToolCallRequest, content: string | null) =>
  content?.trim() && content.trim().toUpperCase() !== 'READY' ? content.trim() : `call ${call.name}`;

/**
 * The step of one tool call of the model, with the parameters the agent adds; null for a call it cannot make (a tool
 * not offered, nothing to grade or rerank, a search without a query).
 */
export function planOfCall(
  call: ToolCallRequest,
  offered: readonly ToolDefinition[],
  state: RagState,
  question: string,
  content: string | null,
): OperationPlan | null {
  if (!offered.some((d) => d.name === call.name)) return null;
  const args = call.arguments;
  const reason = reasonOf(call, content);
  switch (call.name as RagToolName) {
    case 'vector_retrieve':
      return typeof args['query'] === 'string' && args['query'].trim()
        ? operationPlan(call.name, args, reason)
        : null;
    case 'rerank':
    case 'grade': {
      if (state.documents.length === 0) return null;
      const topK =
        call.name === 'rerank' && typeof args['top_k'] === 'number' ? { top_k: args['top_k'] } : {};
      const documents = state.documents.map((d) => ({ doc_id: d.doc_id, uri: d.uri, text: d.text }));
      return operationPlan(call.name, { question, documents, ...topK }, reason);
    }
    case 'query_rewrite':
      return operationPlan(call.name, { question, tried_queries: [...state.triedQueries] }, reason);
    case 'memory_retrieve':
      return operationPlan(call.name, args, reason);
    default:
      return null;
  }
}
