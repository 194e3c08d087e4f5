import { FakeOpenAIServer } from '@novelrag/testkit';
import type { ToolDefinition } from '@novelrag/agenturn';
import { OpenAIChatModel } from './openai-chat-model';

/** The error a promise rejects with (fails the test when it resolves). */
function rejectionOf(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}

const tools: ToolDefinition[] = [
  {
    name: 'create_element',
    description: 'Create an element',
    parameters: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  },
  { name: 'Finalize', description: 'Finish the goal', parameters: { type: 'object', properties: {} } },
];
const messages = [
  { role: 'system', content: 'Decide the next action.' },
  { role: 'user', content: 'Decide.' },
] as const;

type Body = {
  tools: unknown[];
  tool_choice: unknown;
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
};
const bodyOf = (server: FakeOpenAIServer, i: number) => server.requests[i]!.body as Body;

describe('OpenAIChatModel tool calls (fake server, real SDK)', () => {
  let server: FakeOpenAIServer;
  const model = () =>
    new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', models: { default: 'fake' }, maxRetries: 0 });
  const names = ['create_element', 'Finalize'];

  beforeAll(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());
  afterEach(() => server.assertDone());

  it('offers the tools in function format, maps the choice and parses the call', async () => {
    server.once(
      { kind: 'tools', toolNames: names },
      {
        toolCalls: [{ id: 'call_1', name: 'create_element', arguments: { uri: '/character/yu_gui' } }],
        content: 'Creating.',
      },
    );
    const result = await model().callTools({
      messages,
      purpose: 'decide',
      tools,
      toolChoice: { name: 'create_element' },
    });
    expect(result.value).toEqual({
      content: 'Creating.',
      toolCalls: [{ id: 'call_1', name: 'create_element', arguments: { uri: '/character/yu_gui' } }],
    });
    expect(result.attempts).toBe(1);
    const body = bodyOf(server, 0);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'create_element' } });
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'create_element',
          description: 'Create an element',
          parameters: tools[0]!.parameters,
        },
      },
      {
        type: 'function',
        function: { name: 'Finalize', description: 'Finish the goal', parameters: tools[1]!.parameters },
      },
    ]);
  });

  it('accepts an answer without a call when the choice is auto', async () => {
    server.once({ toolNames: (n) => n.includes('Finalize') }, { text: 'Nothing to do.' });
    const result = await model().callTools({ messages, purpose: 'decide', tools, toolChoice: 'auto' });
    expect(result.value).toEqual({ content: 'Nothing to do.', toolCalls: [] });
    expect(bodyOf(server, 0).tool_choice).toBe('auto');
  });

  it('retries when a call was required but none came', async () => {
    server
      .once({ kind: 'tools' }, { text: 'I think we are done.' })
      .once({ kind: 'tools' }, { toolCalls: [{ name: 'Finalize', arguments: '' }] });
    const result = await model().callTools({ messages, purpose: 'decide', tools, toolChoice: 'required' });
    expect(result.value.toolCalls).toEqual([{ id: expect.any(String), name: 'Finalize', arguments: {} }]);
    expect(result.attempts).toBe(2);
    const retry = bodyOf(server, 1);
    expect(retry.tool_choice).toBe('required');
    expect(retry.messages.slice(2)).toEqual([
      { role: 'assistant', content: 'I think we are done.' },
      { role: 'user', content: 'You must call one of the tools. Answer with a tool call.' },
    ]);
  });

  it('feeds back invalid argument JSON and unknown tools as tool messages, then accepts the fix', async () => {
    server
      .once(
        { kind: 'tools' },
        {
          toolCalls: [
            { id: 'c1', name: 'create_element', arguments: '{"uri": "/char' },
            { id: 'c2', name: 'delete_world', arguments: {} },
            { id: 'c3', name: 'Finalize', arguments: {} },
          ],
        },
      )
      .once(
        { kind: 'tools' },
        { toolCalls: [{ id: 'c4', name: 'create_element', arguments: { uri: '/c/x' } }] },
      );
    const result = await model().callTools({ messages, purpose: 'decide', tools, toolChoice: 'auto' });
    expect(result.value.toolCalls).toEqual([
      { id: 'c4', name: 'create_element', arguments: { uri: '/c/x' } },
    ]);
    const retry = bodyOf(server, 1).messages.slice(2);
    expect(retry[0]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'c1' }, { id: 'c2' }, { id: 'c3' }],
    });
    expect(retry.slice(1).map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'c1'],
      ['tool', 'c2'],
      ['tool', 'c3'],
    ]);
    expect(retry[1]!.content).toContain('arguments are not valid JSON');
    expect(retry[2]!.content).toContain('no tool named "delete_world"');
    expect(retry[2]!.content).toContain('create_element, Finalize');
    expect(retry[3]!.content).toContain('Not executed');
  });

  it('throws ModelOutputError when the model keeps calling an unknown tool', async () => {
    server.always({ kind: 'tools' }, { toolCalls: [{ name: 'delete_world', arguments: {} }] });
    const call = model().callTools({ messages, purpose: 'decide', tools, toolChoice: 'required' });
    await expect(call).rejects.toMatchObject({
      code: 'MODEL_OUTPUT_INVALID',
      attempts: 3,
      issues: [{ path: 'tool_calls.0', message: 'call to an unknown tool' }],
    });
    expect((await rejectionOf(call)).message).not.toContain('delete_world');
  });

  it('rejects a forced tool that is not offered, before calling', async () => {
    await expect(
      model().callTools({ messages, purpose: 'decide', tools, toolChoice: { name: 'missing' } }),
    ).rejects.toMatchObject({ name: 'ConfigError' });
  });
});
