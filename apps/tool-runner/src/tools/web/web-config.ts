/** How the web tools reach the web (from the tool-runner's `NOVELRAG_WEB_*` settings). */
export interface WebToolsConfig {
  /** Whether `web_extract` may fetch private and loopback addresses. */
  readonly allowPrivate: boolean;
  /** A SearXNG-style JSON search endpoint (`?q=…&format=json`); absent: `web_search` is not configured. */
  readonly searchUrl?: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}
