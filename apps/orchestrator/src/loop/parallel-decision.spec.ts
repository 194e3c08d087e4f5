import type { ScriptEntry } from '@novelrag/agenturn/testing';
import { approve, assess, discover } from './test-support/script';
import { setup } from './test-support/harness';

const calls = (...list: Array<[string, Record<string, unknown>]>): ScriptEntry => ({
  kind: 'tools',
  respond: {
    content: 'two independent additions',
    toolCalls: list.map(([name, args], i) => ({ id: `call-${i}`, name, arguments: args })),
  },
});

describe('ActionDetermineLoop: several tool calls in one decision', () => {
  const twoCreates = calls(
    ['create_element', { uri: '/character/lin', name: 'Lin' }],
    ['create_element', { uri: '/character/mo', name: 'Mo' }],
  );

  it('returns the first call with the reply’s further calls as its group, within the limit', async () => {
    const t = setup([assess(), discover({ expand_tools: ['create_element'] }), twoCreates, approve()], {
      parallelToolCalls: 4,
    });
    const decision = await t.run();
    t.model.assertDone();
    expect(decision).toMatchObject({
      kind: 'operation',
      tool: 'create_element',
      parameters: { uri: '/character/lin', name: 'Lin' },
      group: [
        { kind: 'operation', tool: 'create_element', parameters: { uri: '/character/mo', name: 'Mo' } },
      ],
    });
  });

  it('keeps only the first call when one call per step is allowed (the default)', async () => {
    const t = setup([assess(), discover({ expand_tools: ['create_element'] }), twoCreates, approve()]);
    const decision = await t.run();
    expect(decision).toMatchObject({ kind: 'operation', parameters: { name: 'Lin' } });
    expect(decision).not.toHaveProperty('group');
  });

  it('feeds an invalid further call back like an invalid first one', async () => {
    const bad = calls(
      ['create_element', { uri: '/character/lin', name: 'Lin' }],
      ['create_element', { uri: '/character/mo' }],
    );
    const t = setup([assess(), discover({ expand_tools: ['create_element'] }), bad, twoCreates, approve()], {
      parallelToolCalls: 2,
    });
    expect(await t.run()).toMatchObject({ group: [{ parameters: { name: 'Mo' } }] });
    expect(t.model.calls[3]?.messages.at(-1)?.content).toMatch(/Invalid arguments for create_element/);
  });
});
