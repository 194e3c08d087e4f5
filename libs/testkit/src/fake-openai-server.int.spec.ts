import { FakeOpenAIServer } from './fake-openai-server';
import { hashedVector } from './fake-openai-responses';

/** The parts of the wire answers the tests read. */
interface WireReply {
  error: { message: string };
  choices: { message: { content: string | null; refusal: string | null } }[];
  data: { embedding: number[] | string }[];
}

async function post(server: FakeOpenAIServer, path: string, body: unknown) {
  const res = await fetch(`${server.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-secret' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as WireReply };
}

const structured = (name: string) => ({
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  response_format: { type: 'json_schema', json_schema: { name, schema: {}, strict: true } },
});
const withTools = (...names: string[]) => ({
  model: 'm',
  messages: [{ role: 'user', content: 'hi' }],
  tools: names.map((name) => ({ type: 'function', function: { name, parameters: {} } })),
});

describe('FakeOpenAIServer', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await FakeOpenAIServer.start({ models: ['a', 'b'], embeddingDimensions: 6 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('matches handlers by schema name, tool names and kind, first match wins, once by default', async () => {
    server
      .once({ schemaName: 'plan' }, { json: { step: 1 } })
      .once(
        { toolNames: ['b_tool', 'a_tool'] },
        { toolCalls: [{ id: 'c1', name: 'a_tool', arguments: { x: 1 } }] },
      )
      .always({ kind: 'text' }, { text: 'hello' });

    const plan = await post(server, '/chat/completions', structured('plan'));
    expect(plan.json).toMatchObject({
      object: 'chat.completion',
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: { role: 'assistant', content: '{"step":1}', refusal: null },
        },
      ],
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      },
    });
    const tools = await post(server, '/chat/completions', withTools('a_tool', 'b_tool'));
    expect(tools.json.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'a_tool', arguments: '{"x":1}' } }],
      },
    });
    for (let i = 0; i < 2; i += 1) {
      const text = await post(server, '/chat/completions', { model: 'm', messages: [] });
      expect(text.json.choices[0]!.message.content).toBe('hello');
    }
    expect(server.requests.map((r) => r.kind)).toEqual(['structured', 'tools', 'text', 'text']);
    expect(server.requests[0]!.headers['authorization']).toBeUndefined();
    expect(server.requests[1]!.toolNames).toEqual(['a_tool', 'b_tool']);
    server.assertDone();
  });

  it('answers unmatched chat requests with a non-retryable 500 and records them', async () => {
    server.once({ schemaName: 'plan' }, { json: {} });
    const res = await post(server, '/chat/completions', structured('other'));
    expect(res.status).toBe(500);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(res.json.error.message).toContain(
      'no handler matches this structured chat request, schema "other"',
    );
    expect(server.unmatched).toHaveLength(1);
    expect(() => server.assertDone()).toThrow(/unmatched requests.*1 scripted handler\(s\) never used/);
  });

  it('scripts HTTP errors, refusals and replies computed from the request', async () => {
    server
      .once({}, { status: 429, message: 'slow down', code: 'rate_limit_exceeded' })
      .once({}, { refusal: 'no' })
      .once({ where: (r) => JSON.stringify(r.body).includes('echo me') }, (r) => ({
        text: String((r.body as { model: string }).model),
      }));
    const limited = await post(server, '/chat/completions', { model: 'm', messages: [] });
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({
      error: { message: 'slow down', type: 'server_error', param: null, code: 'rate_limit_exceeded' },
    });
    const refused = await post(server, '/chat/completions', { model: 'm', messages: [] });
    expect(refused.json.choices[0]!.message).toMatchObject({ content: null, refusal: 'no' });
    const echoed = await post(server, '/chat/completions', {
      model: 'echo-model',
      messages: [{ role: 'user', content: 'echo me' }],
    });
    expect(echoed.json.choices[0]!.message.content).toBe('echo-model');
  });

  it('serves deterministic embeddings (float and base64) and the model list', async () => {
    const floats = await post(server, '/embeddings', { model: 'e', input: ['x', 'y'] });
    expect(floats.json.data).toHaveLength(2);
    expect(floats.json.data[0]!.embedding).toEqual(hashedVector('x', 6));
    const sized = await post(server, '/embeddings', {
      model: 'e',
      input: 'x',
      dimensions: 3,
      encoding_format: 'base64',
    });
    const bytes = Buffer.from(sized.json.data[0]!.embedding as string, 'base64');
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(decoded).toHaveLength(3);
    expect(decoded[0]).toBeCloseTo(hashedVector('x', 3)[0]!, 5);
    const models = await fetch(`${server.baseURL}/models`);
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('closes promptly while a delayed reply is pending', async () => {
    server.once({}, { delayMs: 60_000, then: { text: 'never' } });
    const pending = fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      body: '{"messages":[]}',
    }).catch((err: unknown) => err);
    await server.waitForRequests(1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await pending).toMatchObject({ name: 'TypeError', message: 'fetch failed' }); // the connection was dropped
  });
});
