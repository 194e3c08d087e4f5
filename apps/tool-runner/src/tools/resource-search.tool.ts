import { toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';
import { elementContextView, json } from '../prompts/views';
import { SEARCH_INPUT_SCHEMA, searchRequestOf } from './search-input';
import type { ToolDeps } from './tool-deps';

/** Hybrid (keyword + vector) search over elements, optionally within one aspect. */
export function resourceSearchTool(deps: ToolDeps): HostedTool {
  return {
    name: 'ResourceSearchTool',
    description:
      'Search elements by meaning and by exact words (names included), optionally within one aspect. Use it to find ' +
      'resources whose URI you do not know.',
    outputDescription:
      'JSON list of matching elements, best first, each with id, uri, aspect, properties, relationships and child ids.',
    inputSchema: SEARCH_INPUT_SCHEMA,
    timeoutMs: 30_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const request = searchRequestOf(params);
      const { hits } = await deps.resources.search(request, signal);
      ctx.info(`search "${request.query}" found ${hits.length} resource(s)`);
      return toolResult(json(hits.map((h) => elementContextView(h.element))));
    },
  };
}
