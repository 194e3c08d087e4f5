import { toolError, toolResult, type ToolOutput } from '@novelrag/agenturn';
import type { HostedTool, ToolContext } from '@novelrag/tool-kit';
import type { z } from 'zod';
import { FetchProblem, boundedFetch } from './bounded-fetch';
import type { WebToolsConfig } from './web-config';

/** A search tool over a SearXNG-style JSON API: what it asks for and how it presents the answer. */
export interface SearchToolSpec<T> {
  readonly name: string;
  readonly description: string;
  readonly outputDescription: string;
  readonly queryDescription: string;
  /** The configured endpoint; absent: the tool answers `notConfigured` (TOOL_FAILED). */
  readonly endpoint: string | undefined;
  readonly notConfigured: string;
  readonly extra?: Readonly<Record<string, string>>;
  readonly answer: z.ZodType<T>;
  /** The result (JSON-serialised) from the answer and the number of results asked for. */
  present(answer: T, maxResults: number): unknown;
}

/** A read-only search tool: `query` and `max_results` (1–20, default 5) in, the presented answer out. */
export function searchApiTool<T>(spec: SearchToolSpec<T>, config: WebToolsConfig): HostedTool {
  return {
    name: spec.name,
    description: spec.description,
    outputDescription: spec.outputDescription,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: spec.queryDescription },
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
      if (!spec.endpoint) return toolError(spec.notConfigured, 'TOOL_FAILED');
      const asked = await askSearchApi(
        {
          tool: spec.name,
          endpoint: spec.endpoint,
          query: String(params['query']),
          ...(spec.extra ? { extra: spec.extra } : {}),
          answer: spec.answer,
        },
        config,
        ctx,
        signal,
      );
      if ('error' in asked) return asked.error;
      return toolResult(JSON.stringify(spec.present(asked.data, Number(params['max_results'] ?? 5))));
    },
  };
}

/**
 * Asks a SearXNG-style JSON search API (`GET <endpoint>?q=<query>&format=json&<extra>`) and checks its answer against
 * `answer`. Returns the parsed answer, or the coded tool error to answer with (an HTTP error status, an answer that is
 * not the expected JSON, a failed, refused, oversized or timed-out fetch).
 */
export async function askSearchApi<T>(
  request: {
    readonly tool: string;
    readonly endpoint: string;
    readonly query: string;
    readonly extra?: Readonly<Record<string, string>>;
    readonly answer: z.ZodType<T>;
  },
  config: WebToolsConfig,
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<{ readonly data: T } | { readonly error: ToolOutput }> {
  const url = new URL(request.endpoint);
  url.searchParams.set('q', request.query);
  url.searchParams.set('format', 'json');
  for (const [key, value] of Object.entries(request.extra ?? {})) url.searchParams.set(key, value);
  try {
    // The search service is the operator's own choice: it may be on a private network.
    const page = await boundedFetch(url.href, { ...config, allowPrivate: true }, signal);
    if (page.status >= 400)
      return { error: toolError(`the search service answered HTTP ${page.status}`, 'TOOL_FAILED') };
    const parsed = request.answer.safeParse(parseJson(page.body));
    if (!parsed.success)
      return { error: toolError('the search service did not answer with results', 'TOOL_FAILED') };
    return { data: parsed.data };
  } catch (error) {
    if (!(error instanceof FetchProblem)) throw error;
    ctx.error(`${request.tool}: ${error.code}`);
    return { error: toolError(`the search service failed: ${error.message}`, error.code) };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
