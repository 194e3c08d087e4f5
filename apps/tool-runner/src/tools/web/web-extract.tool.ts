import { toolError, toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';
import { convert } from 'html-to-text';
import { FetchProblem, boundedFetch } from './bounded-fetch';
import type { WebToolsConfig } from './web-config';

const DEFAULT_CHARS = 20_000;
const MAX_CHARS = 50_000;

/** The readable text of an HTML page: no scripts, styles, navigation chrome or image placeholders. */
export function readableText(html: string): { title: string; text: string } {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.trim() ?? '';
  const text = convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'head', format: 'skip' },
      { selector: 'img', format: 'skip' },
      { selector: 'nav', format: 'skip' },
      { selector: 'header', format: 'skip' },
      { selector: 'footer', format: 'skip' },
      { selector: 'form', format: 'skip' },
    ],
  });
  return { title: convert(title, { wordwrap: false }), text: text.replace(/\n{3,}/g, '\n\n').trim() };
}

/** Fetches one web page (bounded in time and size, public addresses only unless configured) and returns its text. */
export function webExtractTool(config: WebToolsConfig): HostedTool {
  return {
    name: 'web_extract',
    description:
      'Fetch one web page by URL (http or https) and return its readable text and title. Pages larger than ' +
      `${config.maxBytes} bytes or slower than ${config.timeoutMs} ms are refused.`,
    outputDescription: 'JSON {"url", "title", "text", "truncated"}; `url` is the final one after redirects.',
    inputSchema: {
      type: 'object',
      properties: {
        url: {
          type: 'string',
          minLength: 1,
          maxLength: 2048,
          description: 'The page, e.g. https://example.org/a',
        },
        max_chars: {
          type: 'integer',
          minimum: 100,
          maximum: MAX_CHARS,
          description: `Longest text returned (default ${DEFAULT_CHARS})`,
        },
      },
      required: ['url'],
      additionalProperties: false,
    },
    timeoutMs: config.timeoutMs + 5_000,
    hints: { readOnly: true, destructive: false, idempotent: true },
    async call(ctx, params, signal) {
      const maxChars = Number(params['max_chars'] ?? DEFAULT_CHARS);
      try {
        const page = await boundedFetch(String(params['url']), config, signal);
        if (page.status >= 400) return toolError(`the page answered HTTP ${page.status}`, 'TOOL_FAILED');
        const html = /html|xml/i.test(page.contentType);
        if (!html && !/^text\//i.test(page.contentType))
          return toolError(`not a text page (${page.contentType || 'no content type'})`, 'TOOL_FAILED');
        const { title, text } = html ? readableText(page.body) : { title: '', text: page.body.trim() };
        const truncated = text.length > maxChars;
        return toolResult(JSON.stringify({ url: page.url, title, text: text.slice(0, maxChars), truncated }));
      } catch (error) {
        if (!(error instanceof FetchProblem)) throw error;
        ctx.error(`web_extract: ${error.code}`);
        return toolError(error.message, error.code);
      }
    },
  };
}
