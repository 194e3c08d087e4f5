import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { discoverTools } from '@novelrag/bus';
import { type NatsServerHandle, connectTestNats, settle, startNats } from '@novelrag/testkit';
import { silentLogger } from '@novelrag/tool-kit';
import { z } from 'zod';
import { McpServerConfig } from './config';
import { type SupervisorState, ServerSupervisor } from './server-supervisor';

/** Resolves at the supervisor's next change to `state`. */
const next = (supervisor: ServerSupervisor, state: SupervisorState) =>
  new Promise<void>((resolve) => {
    const off = supervisor.onState((s) => {
      if (s === state) {
        off();
        resolve();
      }
    });
  });

// A streamable HTTP MCP server (the SDK's, in this process) behind a header check, bridged onto a private NATS: the
// configured headers are sent, the tools are prefixed, and a tool added later is served after the list change.
describe('MCP bridge over streamable HTTP: headers and tool list changes', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let http: Server;
  let supervisor: ServerSupervisor;
  const mcp = new McpServer(
    { name: 'probe', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connectTestNats(nats.url);
    mcp.registerTool(
      'alpha',
      { description: 'first', inputSchema: { n: z.number() }, annotations: { readOnlyHint: true } },
      ({ n }) => ({ content: [{ type: 'text', text: `alpha ${n}` }] }),
    );
    await mcp.connect(transport);
    http = createServer((req, res) => {
      if (req.headers['x-api-key'] !== 'probe-key') {
        res.statusCode = 401;
        res.end();
        return;
      }
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    supervisor = new ServerSupervisor({
      name: 'probe',
      config: McpServerConfig.parse({
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { 'x-api-key': 'probe-key' },
        prefix: 'web',
      }),
      connection: nc,
      instanceId: 'bridge-http-1',
      logger: silentLogger,
      maxRestartMs: 1_000,
    });
    await supervisor.start();
  }, 60_000);

  afterAll(async () => {
    await supervisor?.stop();
    await mcp.close();
    await new Promise((resolve) => http?.close(resolve));
    await nc?.close();
    await nats?.stop();
  });

  it('serves the prefixed tools with their hints, and a tool added later after the list change', async () => {
    expect(supervisor.state).toBe('serving');
    expect(supervisor.tools).toEqual(['web_alpha']);
    const before = await settle(
      () => discoverTools(nc),
      (d) => d.tools.some((t) => t.name === 'web_alpha'),
    );
    expect(before.tools.find((t) => t.name === 'web_alpha')?.metadata).toMatchObject({
      readOnly: true,
      destructive: false,
    });
    const served = next(supervisor, 'serving');
    mcp.registerTool('beta', { description: 'second', inputSchema: {} }, () => ({
      content: [{ type: 'text', text: 'beta' }],
    }));
    await served;
    expect(supervisor.tools.sort()).toEqual(['web_alpha', 'web_beta']);
    const after = await settle(
      () => discoverTools(nc),
      (d) => d.tools.length === 2,
    );
    expect(after.tools.map((t) => t.name).sort()).toEqual(['web_alpha', 'web_beta']);
    expect(after.tools.find((t) => t.name === 'web_beta')?.metadata).toMatchObject({ destructive: true });
  });
});
