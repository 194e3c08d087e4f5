import { CancelledError, withSpentUsage } from '@novelrag/agenturn';
import type { ScriptEntry } from '@novelrag/agenturn/testing';
import { approve, assess, assessmentOf, callTool, discover, finalize } from './test-support/script';
import { outputError, prompt, setup } from './test-support/harness';

describe('ActionDetermineLoop: malformed model output', () => {
  const unchecked = (reply: {
    content: string | null;
    toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[];
  }): ScriptEntry => ({ kind: 'tools', unchecked: true, respond: reply });

  it('an unknown tool is fed back and the retry counts', async () => {
    const t = setup([
      assess(),
      discover(),
      unchecked({ content: null, toolCalls: [{ id: '1', name: 'delete_everything', arguments: {} }] }),
      finalize('success', 'ok'),
      approve(),
    ]);
    expect(await t.run()).toMatchObject({ status: 'success' });
    t.model.assertDone();
    const retry = t.model.calls[3]?.messages ?? [];
    expect(retry.at(-1)?.content).toMatch(/no callable tool named "delete_everything"/);
  });

  it('empty tool calls three times degrade to a failed resolution with the reason', async () => {
    const none = unchecked({ content: 'I think...', toolCalls: [] });
    const t = setup([assess(), discover(), none, none, none]);
    const decision = await t.run();
    t.model.assertDone();
    expect(decision).toEqual({
      kind: 'resolution',
      status: 'failed',
      reason: 'Invalid action decision',
      response: expect.stringMatching(/made no tool call/),
    });
    expect(t.observer.of('llm').filter((e) => e.info.purpose === 'action_decision')).toHaveLength(3);
  });

  it('arguments that violate the tool schema, and a bad Finalize status, are fed back', async () => {
    const t = setup([
      assess(),
      discover({ expand_tools: ['create_element'] }),
      callTool('create_element', { uri: '/character/lin' }),
      callTool('Finalize', { status: 'done', response: 'x' }),
      callTool('create_element', { uri: '/character/lin', name: 'Lin' }),
      approve(),
    ]);
    expect(await t.run()).toMatchObject({ kind: 'operation', parameters: { name: 'Lin' } });
    t.model.assertDone();
    expect(t.model.calls[3]?.messages.at(-1)?.content).toMatch(
      /Invalid arguments for create_element[\s\S]*name/,
    );
    expect(t.model.calls[4]?.messages.at(-1)?.content).toMatch(/Invalid Finalize arguments[\s\S]*status/);
  });

  it('invalid JSON from the decision (after the adapter retried) degrades to a failed resolution', async () => {
    const t = setup([
      assess(),
      discover(),
      {
        kind: 'tools',
        respond: () => {
          throw outputError('decide');
        },
      },
    ]);
    expect(await t.run()).toMatchObject({ status: 'failed', reason: 'Invalid action decision' });
    expect(t.observer.of('llm').at(-1)?.info).toMatchObject({
      ok: false,
      attempts: 3,
      error: { code: 'MODEL_OUTPUT_INVALID' },
    });
  });

  it('a failed decision that had cost tokens (its retries) is charged to the goal, not counted as free', async () => {
    const spent = { promptTokens: 900, completionTokens: 120, totalTokens: 1020 };
    const t = setup([
      assess(),
      discover(),
      {
        kind: 'tools',
        respond: () => {
          throw withSpentUsage(outputError('decide'), spent);
        },
      },
    ]);
    expect(await t.run()).toMatchObject({ status: 'failed', reason: 'Invalid action decision' });
    expect(t.observer.of('llm').at(-1)?.info).toMatchObject({
      ok: false,
      promptTokens: 900,
      completionTokens: 120,
    });
  });

  it('a schema violation in the first assessment ends the step with a clear failed resolution', async () => {
    const t = setup([
      {
        kind: 'structured',
        respond: () => {
          throw outputError('assess');
        },
      },
    ]);
    expect(await t.run()).toEqual({
      kind: 'resolution',
      status: 'failed',
      reason: 'Invalid pursuit assessment',
      response: expect.stringContaining('assess'),
    });
  });

  it('invalid context plans are skipped and an invalid verdict lets the decision stand', async () => {
    const t = setup(
      [
        assess(),
        {
          kind: 'structured',
          schemaName: 'DiscoveryPlan',
          respond: () => {
            throw outputError('discover');
          },
        },
        finalize('success', 'from what is loaded'),
        {
          kind: 'structured',
          schemaName: 'RefinementDecision',
          respond: () => {
            throw outputError('analyze');
          },
        },
      ],
      { previousAssessment: assessmentOf('x') },
    );
    expect(await t.run()).toMatchObject({ status: 'success' });
    t.model.assertDone();
    expect(t.observer.of('verdict')[0]?.verdict).toMatchObject({
      verdict: 'approve',
      approval: { confidence: 'low' },
    });
    expect(t.context.events.filter((e) => e.kind === 'warning')).toHaveLength(2);
  });

  it('an invalid later assessment keeps the previous one', async () => {
    const previous = assessmentOf('carry on');
    const t = setup(
      [
        {
          kind: 'structured',
          respond: () => {
            throw outputError('assess');
          },
        },
        discover(),
        finalize('success', 'ok'),
        approve(),
      ],
      { previousAssessment: previous },
    );
    expect(await t.run()).toMatchObject({ status: 'success' });
    expect(prompt(t.model, 1)).toContain('Remaining work: carry on');
  });
});

describe('ActionDetermineLoop: cancellation', () => {
  it('rejects with CancelledError when the signal aborts during a phase', async () => {
    const controller = new AbortController();
    const t = setup([
      assess(),
      {
        kind: 'structured',
        schemaName: 'DiscoveryPlan',
        respond: () => {
          controller.abort();
          return { discovery_analysis: 'x', search_queries: ['余归'], query_resources: [], expand_tools: [] };
        },
      },
    ]);
    await expect(t.run(undefined, controller.signal)).rejects.toBeInstanceOf(CancelledError);
    t.model.assertDone();
    expect(t.resources.searches).toEqual([]);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const t = setup([]);
    await expect(t.run(undefined, AbortSignal.abort())).rejects.toBeInstanceOf(CancelledError);
  });
});
