import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';

/** Longest NovelRAG tool name (contracts `ToolName`). */
const MAX_NAME = 64;

/** The NovelRAG name of an MCP tool: `<prefix>_<tool>`, other characters than A-Z a-z 0-9 _ - replaced by `_`. */
export function bridgedName(prefix: string, tool: string): string {
  return `${prefix}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_NAME);
}

/**
 * MCP annotations as NovelRAG hints. MCP's defaults are kept: a tool that is not read-only is destructive unless it
 * says otherwise (`destructiveHint` defaults to true), and nothing is idempotent unless it says so.
 */
export function hintsOf(tool: Tool): { readOnly: boolean; destructive: boolean; idempotent: boolean } {
  const a = tool.annotations ?? {};
  const readOnly = a.readOnlyHint ?? false;
  return {
    readOnly,
    destructive: readOnly ? false : (a.destructiveHint ?? true),
    idempotent: readOnly || (a.idempotentHint ?? false),
  };
}

/** An MCP tool result as the text a NovelRAG tool returns (text blocks as is, other blocks named, errors coded). */
export function outputOf(result: CallToolResult): ToolOutput {
  const parts = result.content.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource':
        return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
      case 'resource_link':
        return `[resource link ${block.uri}]`;
      default:
        return `[${block.type} ${'mimeType' in block ? block.mimeType : ''}]`.replace(' ]', ']');
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  if (result.isError)
    return { type: 'error', errorMessage: text || 'the MCP tool failed', code: 'TOOL_FAILED' };
  return { type: 'result', result: text };
}

/** One MCP tool served on the bus: each invocation is a `tools/call` to the server, bounded and cancellable. */
export function bridgedTool(
  client: Client,
  prefix: string,
  tool: Tool,
  timeoutMs: number,
  serverLabel: string,
): HostedTool {
  return {
    name: bridgedName(prefix, tool.name),
    description: `${tool.description ?? tool.title ?? tool.name} (MCP tool "${tool.name}" of the server "${serverLabel}")`,
    inputSchema: tool.inputSchema,
    hints: hintsOf(tool),
    timeoutMs,
    async call(ctx, params, signal) {
      const remaining = Math.max(1, Math.min(timeoutMs, ctx.deadline - Date.now()));
      const result = (await client.callTool({ name: tool.name, arguments: { ...params } }, undefined, {
        signal,
        timeout: remaining,
      })) as CallToolResult;
      return outputOf(result);
    },
  };
}
