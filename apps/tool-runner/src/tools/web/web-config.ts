/** The OpenAI-compatible images API `image_generation` calls (`POST <baseUrl>/images/generations`). */
export interface ImageApiConfig {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  readonly timeoutMs: number;
  /** The `response_format` asked for (`url` keeps answers small); absent: none sent (models that refuse it). */
  readonly responseFormat?: 'url' | 'b64_json';
}

/** How the web tools reach the web (from the tool-runner's `NOVELRAG_WEB_*` and `NOVELRAG_IMAGE_*` settings). */
export interface WebToolsConfig {
  /** Whether `web_extract` may fetch private and loopback addresses. */
  readonly allowPrivate: boolean;
  /** A SearXNG-style JSON search endpoint (`?q=…&format=json`); absent: `web_search` is not configured. */
  readonly searchUrl?: string;
  /** A SearXNG-style JSON search endpoint asked with `categories=images`; absent: `image_search` is not configured. */
  readonly imageSearchUrl?: string;
  /** The images API; absent: `image_generation` is not configured. */
  readonly images?: ImageApiConfig;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}
