import type { ErrorCode } from '@novelrag/contracts';
import { Agent, fetch } from 'undici';
import { privateHostProblem, publicOnlyLookup } from './address-guard';

/** The bounds of one fetch by a web tool. */
export interface FetchBounds {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Whether private and loopback addresses may be fetched (tests, trusted deployments). */
  readonly allowPrivate: boolean;
  readonly maxRedirects?: number;
}

/** A refused or failed fetch, with the code the tool answers with. */
export class FetchProblem extends Error {
  constructor(
    message: string,
    readonly code: Extract<
      ErrorCode,
      'FORBIDDEN' | 'TOOL_FAILED' | 'PAYLOAD_TOO_LARGE' | 'TIMEOUT' | 'VALIDATION_FAILED'
    >,
  ) {
    super(message);
  }
}

/** Connections of fetches limited to public addresses: each connection's resolved address is checked. */
const publicOnly = new Agent({
  connect: { lookup: publicOnlyLookup((message) => new FetchProblem(message, 'FORBIDDEN')) },
});

export interface FetchedPage {
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * GETs `url` within the bounds: the whole exchange (redirects included) within `timeoutMs`, at most `maxBytes` of
 * body, and, unless allowed, no private or loopback host at any hop (redirects are followed one by one and checked).
 * @throws FetchProblem
 */
export async function boundedFetch(
  url: string,
  bounds: FetchBounds,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(bounds.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  try {
    let current = parseHttpUrl(url);
    for (let hop = 0; hop <= (bounds.maxRedirects ?? 5); hop++) {
      if (!bounds.allowPrivate) {
        const problem = await privateHostProblem(current);
        if (problem) throw new FetchProblem(problem, 'FORBIDDEN');
      }
      const response = await fetch(current, {
        redirect: 'manual',
        signal: combined,
        ...(bounds.allowPrivate ? {} : { dispatcher: publicOnly }),
      });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        current = parseHttpUrl(new URL(location, current).href);
        continue;
      }
      const body = await readBounded(response, bounds.maxBytes);
      const contentType = response.headers.get('content-type') ?? '';
      return { url: current.href, status: response.status, contentType, body };
    }
    throw new FetchProblem(`more than ${bounds.maxRedirects ?? 5} redirects`, 'TOOL_FAILED');
  } catch (error) {
    if (error instanceof FetchProblem) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof FetchProblem) throw cause;
    if (deadline.aborted)
      throw new FetchProblem(`no complete answer within ${bounds.timeoutMs} ms`, 'TIMEOUT');
    if (signal.aborted) throw error;
    throw new FetchProblem(`fetch failed: ${(error as Error).message}`, 'TOOL_FAILED');
  }
}

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FetchProblem(`"${text}" is not a URL`, 'VALIDATION_FAILED');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchProblem(
      `only http and https URLs can be fetched, not ${url.protocol}`,
      'VALIDATION_FAILED',
    );
  return url;
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new FetchProblem(
      `the page is ${declared} bytes, over the limit of ${maxBytes}`,
      'PAYLOAD_TOO_LARGE',
    );
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    // Leaving the loop by the throw cancels the rest of the body.
    if (size > maxBytes)
      throw new FetchProblem(`the page is over the limit of ${maxBytes} bytes`, 'PAYLOAD_TOO_LARGE');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
