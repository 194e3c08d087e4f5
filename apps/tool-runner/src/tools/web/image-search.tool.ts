import type { HostedTool } from '@novelrag/tool-kit';
import { z } from 'zod';
import { searchApiTool } from './searxng';
import type { WebToolsConfig } from './web-config';

/** The part of a SearXNG-style image answer the tool uses (`categories=images`: `img_src`, `thumbnail_src`). */
const ImageAnswer = z.object({
  results: z.array(
    z
      .object({
        title: z.string().default(''),
        url: z.string().nullish(),
        img_src: z.string().nullish(),
        thumbnail_src: z.string().nullish(),
      })
      .passthrough(),
  ),
});

/** Image search through the configured SearXNG-style JSON API (`GET <url>?q=<query>&format=json&categories=images`). */
export function imageSearchTool(config: WebToolsConfig): HostedTool {
  return searchApiTool(
    {
      name: 'image_search',
      description:
        'Search the web for images. Returns the top results (title, image URL, thumbnail, page URL).',
      outputDescription: 'JSON {"results": [{"title", "image_url", "thumbnail_url", "page_url"}]}.',
      queryDescription: 'What the images should show',
      endpoint: config.imageSearchUrl,
      notConfigured:
        'image search is not configured on this deployment (the tool-runner has no NOVELRAG_IMAGE_SEARCH_URL)',
      extra: { categories: 'images' },
      answer: ImageAnswer,
      present: (answer, maxResults) => ({
        results: answer.results
          .filter((r) => r.img_src)
          .slice(0, maxResults)
          .map((r) => ({
            title: r.title,
            image_url: r.img_src ?? '',
            thumbnail_url: r.thumbnail_src ?? r.img_src ?? '',
            page_url: r.url ?? '',
          })),
      }),
    },
    config,
  );
}
