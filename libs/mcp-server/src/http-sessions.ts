import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createNovelragMcpServer } from './server';

export interface McpHttpSessionsOptions {
  /** The gateway's own REST API as seen from this process (loopback), which every MCP call goes through. */
  readonly apiUrl: string;
  /** Sessions kept at once; the least recently used is closed beyond it (default 1000). */
  readonly maxSessions?: number;
  /** A session unused this long is closed (default 30 min). */
  readonly idleMs?: number;
  readonly now?: () => number;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** The credentials that opened it: every later request of the session must carry the same. */
  readonly authorization: string | undefined;
  lastSeen: number;
}

/** A JSON-RPC error answered before any session exists (no request id to echo). */
function rpcError(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * MCP over streamable HTTP with sessions: an `initialize` POST opens one (its `Mcp-Session-Id` names it), the
 * following POST/GET/DELETE requests reach the same server, so a client's `notifications/cancelled` reaches the call it
 * cancels. A session is bound to the credentials that opened it and lives in this process's memory (clients of a
 * scaled gateway need sticky routing), bounded in number and idle time.
 */
export class McpHttpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly now: () => number;

  constructor(private readonly options: McpHttpSessionsOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Serves one HTTP request of the MCP endpoint; `body` is the already parsed JSON body (POST). */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    authorization: string | undefined,
  ): Promise<void> {
    await this.sweep();
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id) {
      const session = this.sessions.get(id);
      // Another caller's session id is answered like an unknown one.
      if (!session || session.authorization !== authorization)
        return rpcError(res, 404, 'unknown or expired MCP session: initialize again');
      session.lastSeen = this.now();
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return rpcError(res, 400, 'no Mcp-Session-Id: the first request must be initialize');
    await this.open(req, res, body, authorization);
  }

  private async open(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    authorization: string | undefined,
  ): Promise<void> {
    const server = createNovelragMcpServer({ url: this.options.apiUrl, authorization });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { transport, server, authorization, lastSeen: this.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** Closes idle sessions, and the least recently used ones beyond the maximum. */
  private async sweep(): Promise<void> {
    const idleMs = this.options.idleMs ?? 30 * 60_000;
    const max = this.options.maxSessions ?? 1_000;
    const byAge = [...this.sessions.entries()].sort((a, b) => a[1].lastSeen - b[1].lastSeen);
    const excess = Math.max(0, byAge.length - max + 1);
    const stale = byAge.filter(([, s], i) => i < excess || this.now() - s.lastSeen > idleMs);
    for (const [sid, s] of stale) {
      this.sessions.delete(sid);
      await s.server.close().catch(() => undefined);
    }
  }

  /** Closes every session (gateway shutdown). */
  async close(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => undefined)));
  }
}
