import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SearchRequest } from '@novelrag/contracts';

/** The parameters of the search tools (ResourceSearchTool, vector_retrieve): a query, an optional aspect, top_k. */
export const SEARCH_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 2000, description: 'What to search for' },
    aspect: { type: 'string', minLength: 1, description: 'Only search this aspect' },
    top_k: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

/** The resource-service search request of validated search parameters. */
export function searchRequestOf(params: Readonly<Record<string, unknown>>): SearchRequest {
  const aspect = typeof params['aspect'] === 'string' ? params['aspect'] : undefined;
  return {
    query: String(params['query']),
    limit: typeof params['top_k'] === 'number' ? params['top_k'] : DEFAULT_SEARCH_LIMIT,
    ...(aspect ? { aspect } : {}),
  };
}
