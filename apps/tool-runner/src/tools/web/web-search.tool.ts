import type { HostedTool } from '@novelrag/tool-kit';
import { z } from 'zod';
import { searchApiTool } from './searxng';
import type { WebToolsConfig } from './web-config';

/** The part of a SearXNG-style JSON answer the tool uses. */
const SearchAnswer = z.object({
  results: z.array(
    z.object({ title: z.string().default(''), url: z.string(), content: z.string().nullish() }).passthrough(),
  ),
});

/** Web search through the configured SearXNG-style JSON API (`GET <url>?q=<query>&format=json`). */
export function webSearchTool(config: WebToolsConfig): HostedTool {
  return searchApiTool(
    {
      name: 'web_search',
      description:
        'Search the web. Returns the top results (title, URL, snippet); fetch a result with web_extract to read it.',
      outputDescription: 'JSON {"results": [{"title", "url", "snippet"}]}.',
      queryDescription: 'What to search for',
      endpoint: config.searchUrl,
      notConfigured:
        'web search is not configured on this deployment (the tool-runner has no NOVELRAG_WEB_SEARCH_URL)',
      answer: SearchAnswer,
      present: (answer, maxResults) => ({
        results: answer.results
          .slice(0, maxResults)
          .map((r) => ({ title: r.title, url: r.url, snippet: r.content ?? '' })),
      }),
    },
    config,
  );
}
