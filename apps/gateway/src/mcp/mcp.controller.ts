import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { McpHttpSessions } from '@novelrag/mcp-server';

type McpRequest = IncomingMessage & { body?: unknown };

/** The address this request reached, as a URL of the gateway itself (the MCP server calls the public REST API). */
function selfUrl(req: IncomingMessage): string {
  let address = req.socket.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:')) address = address.slice('::ffff:'.length);
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${req.socket.localPort ?? 80}`;
}

/**
 * MCP over streamable HTTP at `/mcp` (POST for calls, GET for the session's event stream, DELETE to end it), behind
 * the same API-key guard and rate limit as the REST API. The MCP server is a client of this gateway's public REST/SSE
 * API, called back with the caller's own `Authorization`, so it can do exactly what the caller could over REST.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController implements OnModuleDestroy {
  private sessions: McpHttpSessions | undefined;

  @All()
  async handle(@Req() req: McpRequest, @Res() res: ServerResponse): Promise<void> {
    this.sessions ??= new McpHttpSessions({ apiUrl: selfUrl(req) });
    const auth = req.headers['authorization'];
    await this.sessions.handle(req, res, req.body, Array.isArray(auth) ? auth[0] : auth);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sessions?.close();
  }
}
