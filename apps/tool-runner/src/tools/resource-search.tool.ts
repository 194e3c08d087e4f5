import { toolResult } from '@novelrag/agenturn';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '@novelrag/contracts';
import type { HostedTool } from '@novelrag/tool-kit';
import { elementContextView, json } from '../prompts/views';
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
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 2000 },
        aspect: { type: 'string', minLength: 1, description: 'Only search this aspect' },
        top_k: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT },
      },
      required: ['query'],
      additionalProperties: false,
    },
    timeoutMs: 30_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const query = String(params['query']);
      const aspect = typeof params['aspect'] === 'string' ? params['aspect'] : undefined;
      const limit = typeof params['top_k'] === 'number' ? params['top_k'] : DEFAULT_SEARCH_LIMIT;
      const { hits } = await deps.resources.search({ query, limit, ...(aspect ? { aspect } : {}) }, signal);
      ctx.info(`search "${query}" found ${hits.length} resource(s)`);
      return toolResult(json(hits.map((h) => elementContextView(h.element))));
    },
  };
}
