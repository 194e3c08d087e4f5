import { z } from 'zod';
import { ModelOutputError } from '../errors/model-errors';
import type { ChatMessage, ToolDefinition } from '../model/chat-model';
import { ScriptedChatModel, ScriptMismatchError } from './scripted-chat-model';

const Translation = z.object({ goal: z.string() });
const messages: ChatMessage[] = [
  { role: 'system', content: 'You translate requests.' },
  { role: 'user', content: 'make 余归' },
];
const tools: ToolDefinition[] = [
  { name: 'search', description: 'find', parameters: { type: 'object' } },
  { name: 'Finalize', description: 'stop', parameters: { type: 'object' } },
];

describe('ScriptedChatModel', () => {
  it('answers matching calls in order, validating structured output, and reports fake usage', async () => {
    const model = new ScriptedChatModel([
      {
        kind: 'structured',
        schemaName: 'goal_translation',
        purpose: 'translate',
        respond: { goal: 'Create 余归' },
      },
      { kind: 'text', respond: (o) => `echo ${o.purpose}` },
      {
        kind: 'tools',
        purpose: 'decide',
        respond: { content: null, toolCalls: [{ id: 'c1', name: 'search', arguments: { query: '余归' } }] },
      },
    ]);

    const first = await model.structured({
      messages,
      purpose: 'translate',
      schema: Translation,
      schemaName: 'goal_translation',
    });
    expect(first.value).toEqual({ goal: 'Create 余归' });
    expect(first.model).toBe('scripted');
    expect(first.attempts).toBe(1);
    const promptChars = messages[0]!.content.length + messages[1]!.content.length;
    expect(first.usage.promptTokens).toBe(Math.ceil(promptChars / 4));
    expect(first.usage.completionTokens).toBe(Math.ceil(JSON.stringify({ goal: 'Create 余归' }).length / 4));
    expect(first.usage.totalTokens).toBe(first.usage.promptTokens + first.usage.completionTokens);

    expect((await model.text({ messages, purpose: 'chat' })).value).toBe('echo chat');
    const reply = await model.callTools({ messages, purpose: 'decide', tools, toolChoice: 'required' });
    expect(reply.value.toolCalls[0]?.arguments).toEqual({ query: '余归' });

    expect(model.calls.map((c) => [c.kind, c.purpose])).toEqual([
      ['structured', 'translate'],
      ['text', 'chat'],
      ['tools', 'decide'],
    ]);
    expect(model.calls[0]?.schemaName).toBe('goal_translation');
    expect(model.calls[2]?.toolNames).toEqual(['search', 'Finalize']);
    expect(model.calls[0]?.messages).toBe(messages);
    expect(() => model.assertDone()).not.toThrow();
  });

  it('returns the parsed data (schema transforms apply)', async () => {
    const Trimmed = z.object({ goal: z.string().transform((s) => s.trim()) });
    const model = new ScriptedChatModel([{ kind: 'structured', respond: { goal: '  padded  ' } }]);
    const r = await model.structured({ messages, purpose: 'translate', schema: Trimmed, schemaName: 't' });
    expect(r.value.goal).toBe('padded');
  });

  it('throws a ScriptMismatchError naming expected and actual on a kind mismatch', async () => {
    const model = new ScriptedChatModel([{ kind: 'text', purpose: 'chat', respond: 'hi' }]);
    const call = model.structured({
      messages,
      purpose: 'assess',
      schema: Translation,
      schemaName: 'assessment',
    });
    await expect(call).rejects.toThrow(ScriptMismatchError);
    await expect(
      new ScriptedChatModel([{ kind: 'text', purpose: 'chat', respond: 'hi' }]).structured({
        messages,
        purpose: 'assess',
        schema: Translation,
        schemaName: 'assessment',
      }),
    ).rejects.toThrow(
      'call #1 expected {text purpose=chat} but got {structured schema=assessment purpose=assess}',
    );
  });

  it('checks schemaName and purpose when the entry names them', async () => {
    const bySchema = new ScriptedChatModel([{ kind: 'structured', schemaName: 'a', respond: { goal: 'x' } }]);
    await expect(
      bySchema.structured({ messages, purpose: 'p', schema: Translation, schemaName: 'b' }),
    ).rejects.toThrow(/expected \{structured schema=a\} but got \{structured schema=b purpose=p\}/);
    const byPurpose = new ScriptedChatModel([{ kind: 'text', purpose: 'refine', respond: 'x' }]);
    await expect(byPurpose.text({ messages, purpose: 'discover' })).rejects.toThrow(
      /purpose=refine.*purpose=discover/,
    );
  });

  it('throws on a call after the script is exhausted', async () => {
    const model = new ScriptedChatModel([{ kind: 'text', respond: 'only' }]);
    await model.text({ messages, purpose: 'a' });
    await expect(model.text({ messages, purpose: 'b' })).rejects.toThrow(
      /unexpected call \{text purpose=b\} after the script was exhausted \(1 entries\)/,
    );
  });

  it('assertDone throws when entries remain, naming them', async () => {
    const model = new ScriptedChatModel([
      { kind: 'text', respond: 'a' },
      { kind: 'structured', schemaName: 'assessment', respond: {} },
    ]);
    await model.text({ messages, purpose: 'x' });
    expect(model.remaining).toBe(1);
    expect(() => model.assertDone()).toThrow('1 expected call(s) never made: {structured schema=assessment}');
  });

  it('assertDone re-throws a mismatch even when the code under test swallowed it', async () => {
    const model = new ScriptedChatModel([]);
    await model.text({ messages, purpose: 'x' }).catch(() => undefined);
    expect(() => model.assertDone()).toThrow(/after the script was exhausted/);
  });

  it('treats structured script data that fails the schema as a test bug', async () => {
    const model = new ScriptedChatModel([{ kind: 'structured', respond: { goal: 42 } }]);
    await expect(
      model.structured({
        messages,
        purpose: 'translate',
        schema: Translation,
        schemaName: 'goal_translation',
      }),
    ).rejects.toThrow(/answers "goal_translation" with data that does not match its schema/);
  });

  it('rejects scripted tool calls to tools that were not offered or that ignore the tool choice', async () => {
    const unknown = new ScriptedChatModel([
      {
        kind: 'tools',
        respond: { content: null, toolCalls: [{ id: '1', name: 'delete_all', arguments: {} }] },
      },
    ]);
    await expect(
      unknown.callTools({ messages, purpose: 'decide', tools, toolChoice: 'auto' }),
    ).rejects.toThrow(/"delete_all", which was not offered/);
    const none = new ScriptedChatModel([{ kind: 'tools', respond: { content: 'thinking', toolCalls: [] } }]);
    await expect(
      none.callTools({ messages, purpose: 'decide', tools, toolChoice: 'required' }),
    ).rejects.toThrow(/no tool call/);
    const forced = new ScriptedChatModel([
      { kind: 'tools', respond: { content: null, toolCalls: [{ id: '1', name: 'search', arguments: {} }] } },
    ]);
    await expect(
      forced.callTools({ messages, purpose: 'decide', tools, toolChoice: { name: 'Finalize' } }),
    ).rejects.toThrow(/other than the forced "Finalize"/);
  });

  it('passes a misbehaving reply through unchecked when the entry asks for it', async () => {
    const model = new ScriptedChatModel([
      {
        kind: 'tools',
        unchecked: true,
        respond: { content: null, toolCalls: [{ id: '1', name: 'delete_all', arguments: {} }] },
      },
      { kind: 'tools', unchecked: true, respond: { content: 'no call', toolCalls: [] } },
    ]);
    const unknown = await model.callTools({ messages, purpose: 'decide', tools, toolChoice: 'required' });
    expect(unknown.value.toolCalls[0]?.name).toBe('delete_all');
    const none = await model.callTools({ messages, purpose: 'decide', tools, toolChoice: 'required' });
    expect(none.value.toolCalls).toEqual([]);
    model.assertDone();
  });

  it('lets a respond function script a failing model', async () => {
    const model = new ScriptedChatModel([
      {
        kind: 'structured',
        respond: () => {
          throw new ModelOutputError({ issues: [], rawOutputLength: 0, attempts: 3, reason: 'refusal' });
        },
      },
    ]);
    await expect(
      model.structured({ messages, purpose: 'p', schema: Translation, schemaName: 's' }),
    ).rejects.toMatchObject({
      code: 'MODEL_OUTPUT_INVALID',
    });
    expect(() => model.assertDone()).not.toThrow();
  });

  it('rejects with CancelledError without consuming an entry when the signal is aborted', async () => {
    const model = new ScriptedChatModel([{ kind: 'text', respond: 'x' }]);
    const controller = new AbortController();
    controller.abort();
    await expect(model.text({ messages, purpose: 'p', signal: controller.signal })).rejects.toMatchObject({
      code: 'CANCELLED',
    });
    expect(model.remaining).toBe(1);
  });
});
