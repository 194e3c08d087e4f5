import { toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';
import { json } from '../../prompts/views';
import { SEARCH_INPUT_SCHEMA, searchRequestOf } from '../search-input';
import type { ToolDeps } from '../tool-deps';
import { docIdOf, elementText, type RetrievedDocument } from './documents';

/** Hybrid search over the repository, answered as citable documents. */
export function vectorRetrieveTool(deps: ToolDeps): HostedTool {
  return {
    name: 'vector_retrieve',
    description:
      'Retrieve documents from the knowledge repository that match a query, by meaning and by exact words (names ' +
      'included), optionally within one aspect. Each document has a doc_id to cite it by, its resource URI and its ' +
      'text.',
    outputDescription:
      'JSON {"documents": [{doc_id, uri, score, text}]}, best match first; doc_id is derived from the URI and stays ' +
      'the same across calls.',
    inputSchema: SEARCH_INPUT_SCHEMA,
    timeoutMs: 30_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const { hits } = await deps.resources.search(searchRequestOf(params), signal);
      const documents: RetrievedDocument[] = hits.map((hit) => ({
        doc_id: docIdOf(hit.uri),
        uri: hit.uri,
        score: hit.score,
        text: elementText(hit.element),
      }));
      ctx.info(`retrieved ${documents.length} document(s)`);
      return toolResult(json({ documents }));
    },
  };
}
