import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { nodeHttpFetch } from './node-http-fetch';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A local HTTP server answering with `handler`; counts the connections it accepted. */
async function serve(
  handler: Handler,
): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const servers: { close: () => Promise<void> }[] = [];
const started = async (handler: Handler) => {
  const s = await serve(handler);
  servers.push(s);
  return s;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('nodeHttpFetch', () => {
  it('sends the method, headers and body, and answers status, headers and body like fetch', async () => {
    const s = await started((req, body, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': String(req.headers['x-test']) });
      res.end(JSON.stringify({ method: req.method, body }));
    });
    const res = await nodeHttpFetch()(`${s.url}/v1/chat`, {
      method: 'POST',
      headers: new Headers({ 'x-test': 'yes', 'content-type': 'application/json' }),
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.url).toBe(`${s.url}/v1/chat`);
    expect(res.headers.get('x-echo')).toBe('yes');
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  it('reuses its connection for the next request (keep-alive)', async () => {
    const s = await started((_req, _body, res) => res.end('ok'));
    const f = nodeHttpFetch();
    for (let i = 0; i < 3; i++)
      expect(await (await f(`${s.url}/x`, { method: 'POST', body: 'b' })).text()).toBe('ok');
    expect(s.connections()).toBe(1);
  });

  it('decodes a gzip body, and gives a 204 without one', async () => {
    const s = await started((req, _body, res) => {
      if (req.url === '/empty') return void res.writeHead(204).end();
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
      res.end(gzipSync('hello'));
    });
    const f = nodeHttpFetch();
    expect(await (await f(`${s.url}/z`)).text()).toBe('hello');
    const empty = await f(`${s.url}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('resolves an event stream at its headers and hands its events over as they come', async () => {
    let finish: () => void = () => undefined;
    const s = await started((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: two\n\n');
    });
    const res = await nodeHttpFetch()(`${s.url}/stream`, { method: 'POST', body: '{}' });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('data: one\n\n');
    finish();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += Buffer.from(r.value).toString();
    expect(rest).toBe('data: two\n\n');
  });
  it('hands an event stream over at its headers whatever the case of its media type (Text/Event-Stream)', async () => {
    const s = await started((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'Text/Event-Stream; charset=UTF-8' });
      res.write('data: one\n\n'); // and no end: a buffered body would never resolve
    });
    const res = await nodeHttpFetch()(`${s.url}/stream`, { method: 'POST', body: '{}' });
    const first = await (res.body as ReadableStream<Uint8Array>).getReader().read();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('data: one\n\n');
  });

  it('follows a redirect as fetch does: a 307 repeats the POST with its body at the new location', async () => {
    const s = await started((req, body, res) => {
      if (req.url === '/old') return void res.writeHead(307, { location: '/new' }).end();
      res.end(`${req.method} ${req.url} ${body}`);
    });
    const res = await nodeHttpFetch()(`${s.url}/old`, { method: 'POST', body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${s.url}/new`);
    expect(await res.text()).toBe('POST /new {"a":1}');
  });
});

describe('nodeHttpFetch failures', () => {
  it("rejects with the signal's reason when aborted, before or during the request", async () => {
    const s = await started(() => undefined); // never answers
    const f = nodeHttpFetch();
    const before = new AbortController();
    before.abort(new Error('early'));
    await expect(f(`${s.url}/x`, { signal: before.signal })).rejects.toThrow('early');
    const during = new AbortController();
    const pending = f(`${s.url}/x`, { method: 'POST', body: '{}', signal: during.signal });
    setImmediate(() => during.abort());
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it("rejects with fetch's TypeError, the cause attached, when the server cannot be reached", async () => {
    const s = await serve(() => undefined);
    await s.close(); // nothing listens on its port any more
    await expect(nodeHttpFetch()(`${s.url}/x`)).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: expect.objectContaining({ code: 'ECONNREFUSED' }),
    });
  });
});

describe('nodeHttpFetch behind an outbound proxy', () => {
  /** A forward proxy for plain HTTP: it answers itself, naming the absolute URL it was asked for. */
  const proxy = () =>
    started((req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ proxied: req.url }));
    });

  it('goes through HTTP_PROXY when Node is told to use the environment proxy (NODE_USE_ENV_PROXY=1)', async () => {
    const via = await proxy();
    const target = await started((_req, _body, res) => res.end('{"proxied":null}'));
    const env = { NODE_USE_ENV_PROXY: '1', HTTP_PROXY: via.url };
    const res = await nodeHttpFetch({ env, execArgv: [] })(`${target.url}/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
    });
    expect(await res.json()).toEqual({ proxied: `${target.url}/v1/chat/completions` });
    expect(target.connections()).toBe(0);
  });

  it('goes straight to the provider when Node is not told to, or the host is in NO_PROXY', async () => {
    const via = await proxy();
    const target = await started((_req, _body, res) => res.end('{"proxied":null}'));
    const call = (env: NodeJS.ProcessEnv) =>
      nodeHttpFetch({ env, execArgv: [] })(`${target.url}/x`, { method: 'POST', body: '{}' }).then(
        (r) => r.json() as Promise<unknown>,
      );
    await expect(call({ HTTP_PROXY: via.url })).resolves.toEqual({ proxied: null });
    await expect(
      call({ NODE_USE_ENV_PROXY: '1', HTTP_PROXY: via.url, NO_PROXY: '127.0.0.1' }),
    ).resolves.toEqual({
      proxied: null,
    });
    await expect(
      nodeHttpFetch({ env: { HTTP_PROXY: via.url }, execArgv: ['--use-env-proxy'] })(`${target.url}/y`, {
        method: 'POST',
        body: '{}',
      }).then((r) => r.json() as Promise<unknown>),
    ).resolves.toEqual({ proxied: `${target.url}/y` });
    expect(via.connections()).toBe(1);
  });
});
