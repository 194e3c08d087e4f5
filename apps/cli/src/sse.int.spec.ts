import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from './errors';
import { GatewayClient } from './gateway-client';
import { followSse } from './sse';

type Handler = (req: IncomingMessage, res: ServerResponse, connection: number) => void;

// The CLI's SSE client against a real HTTP server that misbehaves like a network can: drops mid-stream, goes silent,
// answers errors. (The real gateway's stream is covered by the e2e suites.)
describe('followSse (real HTTP)', () => {
  let server: Server;
  let handler: Handler;
  let connections: IncomingMessage[];
  let client: GatewayClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      connections.push(req);
      handler(req, res, connections.length);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new GatewayClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      timeoutMs: 2_000,
    });
  });
  beforeEach(() => {
    connections = [];
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const collect = async (options: Partial<Parameters<typeof followSse>[2]> = {}) => {
    const ids: string[] = [];
    for await (const m of followSse(client, '/v1/goals/g-1/events', {
      signal: AbortSignal.timeout(10_000),
      ...options,
    }))
      ids.push(m.id ?? '');
    return ids;
  };
  const event = (res: ServerResponse, id: number) =>
    res.write(`id: ${id}\nevent: decision\ndata: {"n":${id}}\n\n`);
  const sse = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 2000\n\n');
  };

  it('resumes after a dropped connection with Last-Event-ID: nothing missed, nothing repeated', async () => {
    handler = (req, res, n) => {
      sse(res);
      if (n === 1) {
        event(res, 1);
        event(res, 2);
        setTimeout(() => res.destroy(), 20);
        return;
      }
      event(res, 3);
      res.end('event: end\ndata: {}\n\n');
    };
    const notices: string[] = [];
    expect(await collect({ onReconnect: (_a, last) => notices.push(String(last)) })).toEqual(['1', '2', '3']);
    expect(connections.map((c) => c.headers['last-event-id'])).toEqual([undefined, '2']);
    expect(notices).toEqual(['2']);
  });

  it('reconnects when the stream goes silent (no heartbeat) and after an error event', async () => {
    handler = (_req, res, n) => {
      sse(res);
      if (n === 1)
        event(res, 1); // then silence
      else if (n === 2) res.end('event: error\ndata: {"code":"UNAVAILABLE"}\n\n');
      else res.end('event: end\ndata: {}\n\n');
    };
    expect(await collect({ idleMs: 300 })).toEqual(['1']);
    expect(connections.map((c) => c.headers['last-event-id'])).toEqual([undefined, '1', '1']);
  });

  it('gives up with coded errors: a 404 at once, a dead stream after the reconnect budget', async () => {
    handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":"NOT_FOUND","message":"goal g-1 does not exist"}');
    };
    await expect(collect()).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404, exitCode: 4 });
    handler = (_req, res) => res.destroy();
    const err = await collect({ maxReconnects: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect(err).toMatchObject({ code: 'UNREACHABLE', exitCode: 3 });
    expect(connections).toHaveLength(1 + 3);
  });

  it('stops with TIMEOUT when the caller bound runs out', async () => {
    handler = (_req, res) => sse(res); // never ends
    await expect(collect({ signal: AbortSignal.timeout(300) })).rejects.toMatchObject({
      code: 'TIMEOUT',
      exitCode: 5,
    });
  });
});
