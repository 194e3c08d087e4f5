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
          .flatMap((r) => {
            const image = webAddress(r.img_src);
            if (!image) return [];
            return [
              {
                title: r.title,
                image_url: image,
                thumbnail_url: webAddress(r.thumbnail_src) ?? image,
                page_url: webAddress(r.url) ?? '',
              },
            ];
          })
          .slice(0, maxResults),
      }),
    },
    config,
  );
}

/**
 * The absolute http(s) address of a URL the search service answered (protocol-relative ones taken as https), or
 * undefined: a `javascript:`, `data:`, `file:` or relative "image" must not reach the model or a UI as a link.
 */
function webAddress(raw: string | null | undefined): string | undefined {
  const text = raw?.trim() ?? '';
  if (text === '') return undefined;
  const absolute = text.startsWith('//') ? `https:${text}` : text;
  if (!URL.canParse(absolute)) return undefined;
  const url = new URL(absolute);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
}
