import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiCallError } from './api-client';

/** A tool result carrying a JSON value (pretty text), preceded by a one-line summary when given. */
export function jsonResult(value: unknown, summary?: string): CallToolResult {
  const json = { type: 'text' as const, text: JSON.stringify(value, null, 2) };
  return { content: summary ? [{ type: 'text', text: summary }, json] : [json] };
}

/** An MCP tool error (`isError`) naming the gateway's error code, so the client's model can act on it. */
export function errorResult(err: unknown): CallToolResult {
  const text =
    err instanceof ApiCallError
      ? `${err.code}: ${err.message}${err.details === undefined ? '' : ` ${JSON.stringify(err.details)}`}`
      : `INTERNAL: ${err instanceof Error ? err.message : String(err)}`;
  return { isError: true, content: [{ type: 'text', text }] };
}
