import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createNovelragMcpServer } from '@novelrag/mcp-server';
import { CLI_EXIT } from '../errors';
import type { CommandHandler } from './command-handler';

/**
 * `novelrag mcp`: NovelRAG as an MCP server over stdio (for desktop MCP clients), a client of the gateway's REST API
 * (`--url`/`NOVELRAG_URL`, `--api-key`/`NOVELRAG_API_KEY`). Stdout carries MCP messages only; runs until stdin ends.
 */
export const mcp: CommandHandler = async (cmd, client) => {
  const server = createNovelragMcpServer({
    url: cmd.global.url,
    authorization: client.authHeaders()['authorization'],
    timeoutMs: cmd.global.timeoutMs,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
  return CLI_EXIT.ok;
};
