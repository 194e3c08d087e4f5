import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ScriptedChatModel } from '@novelrag/agenturn/testing';
import type { ToolOutput } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import type { ToolHost } from '@novelrag/tool-kit';
import { hostBuiltinTools, invokeTool, toolInvocation } from '../../test/harness';
import { MAX_INLINE_IMAGE_CHARS, imageGenerationTool } from './image-generation.tool';
import { imageSearchTool } from './image-search.tool';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PAGE = `<!doctype html><html><head><title>The Ash Road</title><style>.x{color:red}</style>
<script>window.secret = "do not show";</script></head><body><nav>Home | About</nav>
<h1>Chapter One</h1><p>Yu Gui walked the <a href="/ash">ash road</a> at dawn.</p><img src="a.png" alt="pic">
<footer>copyright</footer></body></html>`;

const json = (output: ToolOutput): Record<string, unknown> => {
  if (output.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(output)}`);
  return JSON.parse(output.result) as Record<string, unknown>;
};

const failed = (code: string, message = '') => ({
  type: 'error',
  error: expect.objectContaining({ code, message: expect.stringContaining(message) as unknown }) as unknown,
});

describe('the web and random tools over real NATS (local HTTP servers)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  let server: Server;
  let base: string;
  const routes = new Map<string, Handler>();
  const draws = [0, 0.5, 0.999];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (route) route(req, res);
      else res.writeHead(404).end('missing');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    let i = 0;
    host = await hostBuiltinTools(nc, new ScriptedChatModel([]), {
      instanceId: 'web-tools-test',
      random: () => draws[i++ % draws.length] ?? 0,
      only: ['random_numbers', 'web_search', 'web_extract', 'image_generation', 'image_search'],
      web: {
        allowPrivate: true,
        searchUrl: `${base}/search`,
        imageSearchUrl: `${base}/images`,
        images: {
          baseUrl: `${base}/v1`,
          apiKey: 'sk-images',
          model: 'img-1',
          timeoutMs: 1_500,
          responseFormat: 'url',
        },
        timeoutMs: 1_500,
        maxBytes: 4_096,
      },
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop(1_000);
    await nc?.close();
    await nats?.stop();
    server?.closeAllConnections();
    server?.close();
  });

  it('random_numbers draws integers within [min, max] and refuses min > max', async () => {
    const drawn = json(await invokeTool(nc, toolInvocation('random_numbers', { count: 3, min: 1, max: 6 })));
    expect(drawn).toEqual({ numbers: [1, 4, 6] });
    const bad = await invokeTool(nc, toolInvocation('random_numbers', { min: 5, max: 1 }));
    expect(bad).toMatchObject(failed('VALIDATION_FAILED'));
    const tooMany = await invokeTool(nc, toolInvocation('random_numbers', { count: 1_001 }));
    expect(tooMany.type).toBe('error');
  });

  it('web_extract returns the readable text and title of a page, after a redirect', async () => {
    routes.set('/old', (_req, res) => res.writeHead(302, { location: '/page' }).end());
    routes.set('/page', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    );
    routes.set('/long', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${'word '.repeat(200)}</p>`),
    );
    const page = json(await invokeTool(nc, toolInvocation('web_extract', { url: `${base}/old` })));
    expect(page).toMatchObject({ url: `${base}/page`, title: 'The Ash Road', truncated: false });
    expect(page['text']).toContain('Yu Gui walked the ash road at dawn.');
    expect(page['text']).toMatch(/CHAPTER ONE|Chapter One/);
    for (const hidden of ['The Ash Road', 'do not show', 'color:red', 'Home | About', 'copyright', 'a.png'])
      expect(page['text']).not.toContain(hidden);

    const short = json(
      await invokeTool(nc, toolInvocation('web_extract', { url: `${base}/long`, max_chars: 100 })),
    );
    expect(short).toMatchObject({ truncated: true });
    expect((short['text'] as string).length).toBe(100);
  });

  it('web_extract refuses oversized, slow, failing and non-text pages with coded errors', async () => {
    routes.set('/big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<p>${'x'.repeat(10_000)}</p>`);
    });
    routes.set('/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 10; i++) res.write('y'.repeat(1_000));
      res.end();
    });
    routes.set('/never', () => undefined);
    routes.set('/binary', (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('png'));
    const extract = (path: string) =>
      invokeTool(nc, toolInvocation('web_extract', { url: `${base}${path}` }));
    await expect(extract('/big')).resolves.toMatchObject(failed('PAYLOAD_TOO_LARGE'));
    await expect(extract('/stream')).resolves.toMatchObject(failed('PAYLOAD_TOO_LARGE'));
    await expect(extract('/never')).resolves.toMatchObject(failed('TIMEOUT'));
    await expect(extract('/nothing')).resolves.toMatchObject(failed('TOOL_FAILED', 'HTTP 404'));
    await expect(extract('/binary')).resolves.toMatchObject(failed('TOOL_FAILED', 'not a text page'));
    const ftp = await invokeTool(nc, toolInvocation('web_extract', { url: 'ftp://example.org/x' }));
    expect(ftp).toMatchObject(failed('VALIDATION_FAILED'));
  });

  it('web_search asks the configured SearXNG-style API and returns the top results', async () => {
    const asked: URLSearchParams[] = [];
    routes.set('/search', (req, res) => {
      asked.push(new URL(req.url ?? '/', 'http://x').searchParams);
      const results = [1, 2, 3].map((n) => ({
        title: `Result ${n}`,
        url: `https://example.org/${n}`,
        content: `s${n}`,
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: 'q', results }));
    });
    const found = json(
      await invokeTool(nc, toolInvocation('web_search', { query: 'ash road', max_results: 2 })),
    );
    expect(found).toEqual({
      results: [
        { title: 'Result 1', url: 'https://example.org/1', snippet: 's1' },
        { title: 'Result 2', url: 'https://example.org/2', snippet: 's2' },
      ],
    });
    expect(asked[0]?.get('q')).toBe('ash road');
    expect(asked[0]?.get('format')).toBe('json');

    routes.set('/search', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>no</p>'),
    );
    await expect(invokeTool(nc, toolInvocation('web_search', { query: 'x' }))).resolves.toMatchObject(
      failed('TOOL_FAILED', 'did not answer with results'),
    );
  });

  it('image_search asks the configured API for images and returns image, thumbnail and page URLs', async () => {
    const asked: URLSearchParams[] = [];
    routes.set('/images', (req, res) => {
      asked.push(new URL(req.url ?? '/', 'http://x').searchParams);
      const results = [
        { title: 'No image', url: 'https://example.org/0' },
        {
          title: 'Ash',
          url: 'https://example.org/1',
          img_src: 'https://img.example/1.jpg',
          thumbnail_src: 'https://t/1',
        },
        { title: 'Road', url: 'https://example.org/2', img_src: 'https://img.example/2.jpg' },
      ];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
    });
    const found = json(await invokeTool(nc, toolInvocation('image_search', { query: 'ash road' })));
    expect(found).toEqual({
      results: [
        {
          title: 'Ash',
          image_url: 'https://img.example/1.jpg',
          thumbnail_url: 'https://t/1',
          page_url: 'https://example.org/1',
        },
        {
          title: 'Road',
          image_url: 'https://img.example/2.jpg',
          thumbnail_url: 'https://img.example/2.jpg',
          page_url: 'https://example.org/2',
        },
      ],
    });
    expect([asked[0]?.get('q'), asked[0]?.get('format'), asked[0]?.get('categories')]).toEqual([
      'ash road',
      'json',
      'images',
    ]);
    routes.set('/images', (_req, res) => res.writeHead(503).end('down'));
    await expect(invokeTool(nc, toolInvocation('image_search', { query: 'x' }))).resolves.toMatchObject(
      failed('TOOL_FAILED', 'HTTP 503'),
    );
  });

  it('image_search returns only http(s) addresses: others dropped, protocol-relative ones made https', async () => {
    // The answer comes from outside: a javascript:, file: or data: "image" must not reach the model or a UI as a link.
    routes.set('/images', (_req, res) => {
      const results = [
        { title: 'Script', url: 'https://example.org/1', img_src: 'javascript:alert(1)' },
        { title: 'File', url: 'https://example.org/2', img_src: 'file:///etc/passwd' },
        { title: 'Relative', url: 'https://example.org/3', img_src: '/images/3.jpg' },
        {
          title: 'Protocol-relative',
          url: 'javascript:alert(2)',
          img_src: '//upload.example/4.jpg',
          thumbnail_src: '',
        },
        {
          title: 'Bad thumbnail',
          url: 'https://example.org/5',
          img_src: 'https://img.example/5.jpg',
          thumbnail_src: 'data:text/html,<script>alert(3)</script>',
        },
      ];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
    });
    const found = json(await invokeTool(nc, toolInvocation('image_search', { query: 'ash road' })));
    expect(found).toEqual({
      results: [
        {
          title: 'Protocol-relative',
          image_url: 'https://upload.example/4.jpg',
          thumbnail_url: 'https://upload.example/4.jpg',
          page_url: '',
        },
        {
          title: 'Bad thumbnail',
          image_url: 'https://img.example/5.jpg',
          thumbnail_url: 'https://img.example/5.jpg',
          page_url: 'https://example.org/5',
        },
      ],
    });
  });

  it('image_generation calls the images API through the SDK and returns URLs or bounded inline data', async () => {
    const bodies: Record<string, unknown>[] = [];
    const auth: (string | undefined)[] = [];
    let answer: (res: ServerResponse) => void = () => undefined;
    routes.set('/v1/images/generations', (req, res) => {
      auth.push(req.headers.authorization);
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(text) as Record<string, unknown>);
        answer(res);
      });
    });
    const respond =
      (data: unknown, status = 200) =>
      (res: ServerResponse) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(data));
    const generate = (params: Record<string, unknown>) =>
      invokeTool(nc, toolInvocation('image_generation', { prompt: 'an ash road at dawn', ...params }));

    answer = respond({
      created: 1,
      data: [{ url: 'https://cdn.example/a.png', revised_prompt: 'ash road, dawn' }],
    });
    expect(json(await generate({ size: '1024x1024' }))).toEqual({
      images: [{ url: 'https://cdn.example/a.png', revised_prompt: 'ash road, dawn' }],
    });
    expect(bodies[0]).toMatchObject({
      model: 'img-1',
      prompt: 'an ash road at dawn',
      n: 1,
      size: '1024x1024',
      response_format: 'url', // a URL answer stays small; inline base64 of a full image would be refused
    });
    expect(auth[0]).toBe('Bearer sk-images');

    answer = respond({ created: 1, data: [{ b64_json: 'aGVsbG8=' }, { b64_json: 'd29ybGQ=' }] });
    expect(json(await generate({ n: 2 }))).toEqual({
      images: [{ url: 'data:image/png;base64,aGVsbG8=' }, { url: 'data:image/png;base64,d29ybGQ=' }],
    });

    // Inline data is checked and typed by its content: not base64 is no image; a JPEG is not called a PNG.
    answer = respond({ created: 1, data: [{ b64_json: '"><script>alert(1)</script>' }] });
    await expect(generate({})).resolves.toMatchObject(failed('TOOL_FAILED', 'did not answer with images'));
    answer = respond({
      created: 1,
      data: [{ b64_json: '/9j/4AAQSkZJRg==' }, { b64_json: 'UklGRiQAAABXRUJQ' }],
    });
    expect(json(await generate({ n: 2 }))).toEqual({
      images: [
        { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' },
        { url: 'data:image/webp;base64,UklGRiQAAABXRUJQ' },
      ],
    });

    answer = respond({ created: 1, data: [{ b64_json: 'A'.repeat(MAX_INLINE_IMAGE_CHARS) }] });
    await expect(generate({})).resolves.toMatchObject(
      failed('PAYLOAD_TOO_LARGE', 'use a model that answers with URLs'),
    );
    answer = respond({ created: 1, data: [] });
    await expect(generate({})).resolves.toMatchObject(failed('TOOL_FAILED', 'did not answer with images'));
    answer = respond({ error: { message: 'the prompt was: secret', code: 'bad' } }, 400);
    const refused = await generate({});
    expect(refused).toMatchObject(failed('MODEL_UNAVAILABLE', 'HTTP 400'));
    expect(JSON.stringify(refused)).not.toContain('secret');
    answer = () => undefined;
    await expect(generate({})).resolves.toMatchObject(failed('TIMEOUT'));
    expect(bodies).toHaveLength(8);
  });
});

describe('the image tools without configuration', () => {
  it('say that they are not configured', async () => {
    const ctx = { error: () => undefined } as never;
    const signal = new AbortController().signal;
    const config = { allowPrivate: false, timeoutMs: 1_000, maxBytes: 1_000 };
    await expect(imageGenerationTool(undefined).call(ctx, { prompt: 'x' }, signal)).resolves.toMatchObject({
      code: 'TOOL_FAILED',
      errorMessage: expect.stringContaining('NOVELRAG_IMAGE_API_BASE_URL') as unknown,
    });
    await expect(imageSearchTool(config).call(ctx, { query: 'x' }, signal)).resolves.toMatchObject({
      code: 'TOOL_FAILED',
      errorMessage: expect.stringContaining('NOVELRAG_IMAGE_SEARCH_URL') as unknown,
    });
  });
});
