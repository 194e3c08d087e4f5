import { toolError, toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';
import { z } from 'zod';
import { FetchProblem, boundedFetch } from './bounded-fetch';
import type { WebToolsConfig } from './web-config';

/** The part of a SearXNG-style JSON answer the tool uses. */
const SearchAnswer = z.object({
  results: z.array(
    z.object({ title: z.string().default(''), url: z.string(), content: z.string().nullish() }).passthrough(),
  ),
});

/** Web search through the configured SearXNG-style JSON API (`GET <url>?q=<query>&format=json`). */
export function webSearchTool(config: WebToolsConfig): HostedTool {
  return {
    name: 'web_search',
    description:
      'Search the web. Returns the top results (title, URL, snippet); fetch a result with web_extract to read it.',
    outputDescription: 'JSON {"results": [{"title", "url", "snippet"}]}.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'What to search for' },
        max_results: {
          type: 'integer',
          minimum: 1,
          maximum: 20,
          description: 'How many results (default 5)',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    timeoutMs: config.timeoutMs + 5_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      if (!config.searchUrl)
        return toolError(
          'web search is not configured on this deployment (the tool-runner has no NOVELRAG_WEB_SEARCH_URL)',
          'TOOL_FAILED',
        );
      const url = new URL(config.searchUrl);
      url.searchParams.set('q', String(params['query']));
      url.searchParams.set('format', 'json');
      try {
        // The search service is the operator's own choice: it may be on a private network.
        const page = await boundedFetch(url.href, { ...config, allowPrivate: true }, signal);
        if (page.status >= 400)
          return toolError(`the search service answered HTTP ${page.status}`, 'TOOL_FAILED');
        const answer = SearchAnswer.safeParse(parseJson(page.body));
        if (!answer.success)
          return toolError('the search service did not answer with results', 'TOOL_FAILED');
        const results = answer.data.results
          .slice(0, Number(params['max_results'] ?? 5))
          .map((r) => ({ title: r.title, url: r.url, snippet: r.content ?? '' }));
        return toolResult(JSON.stringify({ results }));
      } catch (error) {
        if (!(error instanceof FetchProblem)) throw error;
        ctx.error(`web_search: ${error.code}`);
        return toolError(`the search service failed: ${error.message}`, error.code);
      }
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
