import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type NovelragApiOptions, NovelragApi } from './api-client';
import { registerGoalTools } from './goal-tools';
import { registerRepositoryTools } from './repository-tools';
import { registerResources } from './resources';

export const MCP_SERVER_NAME = 'novelrag';
export const MCP_SERVER_VERSION = '0.1.0';

/**
 * NovelRAG as an MCP server: goal, question, repository and interaction tools plus `novelrag://` resources, all
 * served through the gateway's public REST/SSE API with the caller's own credentials (no bus access). Connect it to
 * any transport (stdio for `novelrag mcp`, streamable HTTP at the gateway's `/mcp`).
 */
export function createNovelragMcpServer(options: NovelragApiOptions): McpServer {
  const api = new NovelragApi(options);
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'NovelRAG manages a structured knowledge repository (characters, places, …). Use submit_goal to change it, ask to question it, search/read_resource to look things up.',
    },
  );
  registerGoalTools(server, api);
  registerRepositoryTools(server, api);
  registerResources(server, api);
  return server;
}
