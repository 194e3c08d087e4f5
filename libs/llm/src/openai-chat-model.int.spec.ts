import { FakeOpenAIServer } from '@novelrag/testkit';
import { z } from 'zod';
import { fakeModelSuite } from './test/fake-model-suite';

/** The error a promise rejects with (fails the test when it resolves). */
function rejectionOf(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}

const Goal = z.object({ goal: z.string().min(1), priority: z.enum(['low', 'high']).nullable() });
const messages = [
  { role: 'system', content: 'You translate requests. SECRET-PROMPT-TEXT' },
  { role: 'user', content: 'Translate the request.' },
] as const;

type Body = {
  model: string;
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  response_format?: {
    type: string;
    json_schema?: { name: string; strict: boolean; schema: Record<string, unknown> };
  };
  temperature?: number;
};
const bodyOf = (server: FakeOpenAIServer, i: number) => server.requests[i]!.body as Body;

describe('OpenAIChatModel structured and text calls (fake server, real SDK)', () => {
  const suite = fakeModelSuite({
    models: { default: 'fake-default', byPurpose: { translate: 'fake-translator' } },
  });
  const { events, model } = suite;

  afterEach(() => {
    suite.server.assertDone();
  });

  it('sends a strict json_schema response format and returns the validated value', async () => {
    suite.server.once(
      { kind: 'structured', schemaName: 'goal' },
      { json: { goal: 'Create 余归', priority: null } },
      {
        promptTokens: 40,
        completionTokens: 7,
      },
    );
    const result = await model({ temperature: 0.2 }).structured({
      messages,
      purpose: 'translate',
      schema: Goal,
      schemaName: 'goal',
    });
    expect(result).toMatchObject({
      value: { goal: 'Create 余归', priority: null },
      model: 'fake-translator',
      attempts: 1,
      usage: { promptTokens: 40, completionTokens: 7, totalTokens: 47 },
    });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    const body = bodyOf(suite.server, 0);
    expect(body.model).toBe('fake-translator');
    expect(body.temperature).toBe(0.2);
    expect(body.messages).toEqual(messages);
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: {
        name: 'goal',
        strict: true,
        schema: { type: 'object', additionalProperties: false, required: ['goal', 'priority'] },
      },
    });
    expect(suite.server.requests[0]!.headers['authorization']).toBeUndefined(); // recorded without credentials
    expect(events).toEqual([
      expect.objectContaining({ kind: 'structured', purpose: 'translate', outcome: 'ok', attempts: 1 }),
    ]);
    expect(JSON.stringify(events)).not.toContain('余归');
  });

  it('sends optional fields as required and nullable, and an answered null comes back as an absent field', async () => {
    const Draft = Goal.extend({ hint: z.string().optional(), tone: z.string().default('plain') });
    suite.server.once(
      { kind: 'structured', schemaName: 'draft' },
      { json: { goal: 'g', priority: null, hint: null, tone: null } },
    );
    const result = await model().structured({
      messages,
      purpose: 'translate',
      schema: Draft,
      schemaName: 'draft',
    });
    expect(result.value).toEqual({ goal: 'g', priority: null, tone: 'plain' });
    expect(result.attempts).toBe(1);
    const schema = bodyOf(suite.server, 0).response_format?.json_schema?.schema as Record<string, unknown>;
    expect(schema['required']).toEqual(['goal', 'priority', 'hint', 'tone']);
    expect((schema['properties'] as Record<string, unknown>)['hint']).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });

  it('json_object mode puts the schema into a system message and still validates', async () => {
    suite.server.once({ kind: 'structured' }, { text: '```json\n{"goal":"g","priority":"high"}\n```' });
    const result = await model({ structuredMode: 'json_object' }).structured({
      messages,
      purpose: 'assess',
      schema: Goal,
      schemaName: 'goal',
    });
    expect(result.value).toEqual({ goal: 'g', priority: 'high' });
    expect(result.model).toBe('fake-default');
    const body = bodyOf(suite.server, 0);
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(suite.server.requests[0]!.schemaName).toBeUndefined();
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(body.messages[1]!.content).toContain('"goal"');
    expect(body.messages[1]!.content).toContain('"additionalProperties":false');
  });

  it('recovers from an invalid answer by feeding the validation error back', async () => {
    suite.server
      .once(
        { schemaName: 'goal' },
        { json: { goal: 42, priority: 'urgent' } },
        { promptTokens: 10, completionTokens: 5 },
      )
      .once(
        { schemaName: 'goal' },
        { json: { goal: 'fixed', priority: 'low' } },
        { promptTokens: 20, completionTokens: 5 },
      );
    const result = await model().structured({
      messages,
      purpose: 'translate',
      schema: Goal,
      schemaName: 'goal',
    });
    expect(result.value).toEqual({ goal: 'fixed', priority: 'low' });
    expect(result.attempts).toBe(2);
    expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 10, totalTokens: 40 });
    const retry = bodyOf(suite.server, 1).messages;
    expect(retry.slice(0, 2)).toEqual(messages);
    expect(retry[2]).toEqual({ role: 'assistant', content: '{"goal":42,"priority":"urgent"}' });
    expect(retry[3]!.role).toBe('user');
    expect(retry[3]!.content).toContain('did not match the required schema');
    expect(retry[3]!.content).toContain('expected string, received number');
    expect(retry[3]!.content).toContain('→ at goal');
    expect(events[0]).toMatchObject({ outcome: 'ok', attempts: 2, usage: { totalTokens: 40 } });
  });

  it('feeds back invalid JSON, refusals and empty answers before succeeding', async () => {
    suite.server
      .once({}, { text: 'Sure! Here is the goal: {goal' })
      .once({}, { refusal: 'I cannot help with that.' })
      .once({}, { text: '   ' })
      .once({}, { json: { goal: 'ok', priority: null } });
    const result = await model({ validationRetries: 3 }).structured({
      messages,
      purpose: 'translate',
      schema: Goal,
      schemaName: 'goal',
    });
    expect(result.attempts).toBe(4);
    const last = bodyOf(suite.server, 3).messages.slice(2);
    expect(last.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'user']);
    expect(last[1]!.content).toContain('not valid JSON');
    expect(last[3]!.content).toContain('do not refuse');
    expect(last[4]!.content).toContain('empty');
  });

  it('throws ModelOutputError after the validation retries, without the output in the message', async () => {
    suite.server.always({ schemaName: 'goal' }, { json: { goal: 'SECRET-OUTPUT', priority: 'urgent' } });
    const call = model().structured({ messages, purpose: 'translate', schema: Goal, schemaName: 'goal' });
    await expect(call).rejects.toMatchObject({
      name: 'ModelOutputError',
      code: 'MODEL_OUTPUT_INVALID',
      retryable: false,
      attempts: 3,
      issues: [{ path: 'priority', message: expect.stringContaining('Invalid option') }],
    });
    const err = await rejectionOf(call);
    expect(err.message).not.toContain('SECRET-OUTPUT');
    expect(err.message).not.toContain('SECRET-PROMPT-TEXT');
    expect(suite.server.chatRequests()).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({
      outcome: 'invalid_output',
      attempts: 3,
      errorCode: 'MODEL_OUTPUT_INVALID',
    });
  });

  it('rejects invalid schema names before calling', async () => {
    await expect(
      model().structured({ messages, purpose: 'translate', schema: Goal, schemaName: 'bad name!' }),
    ).rejects.toMatchObject({ name: 'ConfigError' });
    expect(suite.server.requests).toHaveLength(0);
  });

  it('returns plain text, retrying an empty answer', async () => {
    suite.server.once({ kind: 'text' }, { text: '' }).once({ kind: 'text' }, { text: 'A calm summary.' });
    const result = await model().text({ messages, purpose: 'summarize' });
    expect(result.value).toBe('A calm summary.');
    expect(result.attempts).toBe(2);
    expect(bodyOf(suite.server, 0).response_format).toBeUndefined();
  });

  it('throws ModelOutputError when text stays empty', async () => {
    suite.server.always({ kind: 'text' }, { text: '' });
    await expect(
      model({ validationRetries: 1 }).text({ messages, purpose: 'summarize' }),
    ).rejects.toMatchObject({
      code: 'MODEL_OUTPUT_INVALID',
      attempts: 2,
      details: expect.objectContaining({ reason: 'empty output' }),
    });
  });
});
