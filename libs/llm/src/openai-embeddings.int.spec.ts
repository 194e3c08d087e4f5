import { FakeOpenAIServer, hashedVector } from '@novelrag/testkit';
import { OpenAIEmbeddings } from './openai-embeddings';
import type { LlmUsageEvent } from './usage';

describe('OpenAIEmbeddings (fake server, real SDK)', () => {
  let server: FakeOpenAIServer;

  beforeAll(async () => {
    server = await FakeOpenAIServer.start({ embeddingDimensions: 12 });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('embeds in batches, in order, as floats, with the configured dimensions', async () => {
    const events: LlmUsageEvent[] = [];
    const embedder = new OpenAIEmbeddings({
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'text-embedding-3-small',
      dimensions: 8,
      batchSize: 2,
      maxRetries: 0,
      onUsage: (e) => events.push(e),
    });
    expect(embedder.dimensions).toBe(8);
    const texts = ['余归', 'Azure Sect', 'the northern kingdom'];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    vectors.forEach((v, i) => {
      expect(v).toHaveLength(8);
      expect(v[0]).toBeCloseTo(hashedVector(texts[i]!, 8)[0]!, 10);
    });
    expect(server.requests.map((r) => r.body)).toEqual([
      {
        model: 'text-embedding-3-small',
        input: ['余归', 'Azure Sect'],
        encoding_format: 'float',
        dimensions: 8,
      },
      {
        model: 'text-embedding-3-small',
        input: ['the northern kingdom'],
        encoding_format: 'float',
        dimensions: 8,
      },
    ]);
    expect(events).toEqual([expect.objectContaining({ kind: 'embeddings', outcome: 'ok', attempts: 2 })]);
    expect(events[0]!.usage.totalTokens).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain('余归');
  });

  it('returns nothing for nothing without calling', async () => {
    const embedder = new OpenAIEmbeddings({ baseURL: server.baseURL, model: 'm', dimensions: 12 });
    expect(await embedder.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects vectors of the wrong size with ConfigError', async () => {
    // No `dimensions` configured: the known size of the model (1536) is expected, the server answers 12.
    const embedder = new OpenAIEmbeddings({
      baseURL: server.baseURL,
      model: 'text-embedding-3-small',
      maxRetries: 0,
    });
    expect(embedder.dimensions).toBe(1536);
    await expect(embedder.embed(['a'])).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('returned 12 dimensions, expected 1536'),
    });
    expect(server.requests[0]!.body).not.toHaveProperty('dimensions');
  });

  it('maps provider errors like the chat model', async () => {
    server.always({ endpoint: 'embeddings' }, { status: 503 });
    const embedder = new OpenAIEmbeddings({
      baseURL: server.baseURL,
      model: 'm',
      dimensions: 12,
      maxRetries: 0,
    });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE', retryable: true });
  });

  it('rejects with CancelledError when aborted in flight', async () => {
    server.always({ endpoint: 'embeddings' }, { delayMs: 10_000 });
    const embedder = new OpenAIEmbeddings({
      baseURL: server.baseURL,
      model: 'm',
      dimensions: 12,
      maxRetries: 0,
    });
    const controller = new AbortController();
    const call = embedder.embed(['x'], controller.signal);
    await server.waitForRequests(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
