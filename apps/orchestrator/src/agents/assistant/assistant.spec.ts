import { ModelUnavailableError } from '@novelrag/agenturn';
import { deferred, fakeTool, InMemoryMemory } from '@novelrag/agenturn/testing';
import {
  AssistantCheckpoint,
  type AnswerDelta,
  AssistantOutputEvent,
  MAX_TEXT_CHARS,
} from '@novelrag/contracts';
import { answer, input, startAssistant, thinkAnswer, thinkCalls } from './test-support';

const cityTool = (name: string, until?: Promise<unknown>) =>
  fakeTool({
    name,
    description: `${name} of a city`,
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    result: (params) => `${name} in ${String(params['city'])}: fine`,
    ...(until ? { until } : {}),
  });

describe('the assistant agent kind', () => {
  it('runs two independent lookups at once, then answers with suggested next inputs and remembers', async () => {
    const gateA = deferred();
    const gateB = deferred();
    const weather = cityTool('weather', gateA.promise);
    const air = cityTool('air_quality', gateB.promise);
    const memory = new InMemoryMemory();
    const h = startAssistant({
      tools: [weather, air],
      memory,
      script: [
        thinkCalls(['weather', 'weather in Beijing'], ['air_quality', 'air quality in Beijing']),
        input('weather', { city: 'Beijing' }),
        input('air_quality', { city: 'Beijing' }),
        thinkAnswer('clothing advice from weather and air'),
        ...answer('Wear a coat and a mask.', ['And tomorrow?', 'What about Shanghai?']),
      ],
    });
    const outcome = h.pursue();

    // Both calls have started while neither may finish: they run at the same time.
    await Promise.all([weather.whenCalled(), air.whenCalled()]);
    expect(h.events.filter((e) => e.kind === 'assistant.tools')).toEqual([
      expect.objectContaining({ phase: 'running', round: 1 }),
    ]);
    const saved = AssistantCheckpoint.parse(h.record().agentState);
    expect(saved.state).toBe('tool_calling');
    expect(saved.tasks.map((t) => [t.tool, t.status, t.step, t.input])).toEqual([
      ['weather', 'running', 0, { city: 'Beijing' }],
      ['air_quality', 'running', 1, { city: 'Beijing' }],
    ]);
    gateB.resolve();
    gateA.resolve();

    const done = await outcome;
    expect(done).toMatchObject({ status: 'completed', response: 'Wear a coat and a mask.' });
    expect(done.executedSteps.map((s) => [s.operation.tool, s.status])).toEqual([
      ['weather', 'success'],
      ['air_quality', 'success'],
    ]);
    expect(h.events.find((e) => e.kind === 'assistant.output')).toMatchObject({
      content: 'Wear a coat and a mask.',
      suggestions: ['And tomorrow?', 'What about Shanghai?'],
      forced: false,
    });
    const moves = h.events.flatMap((e) => (e.kind === 'assistant.state' ? [`${e.from}>${e.to}`] : []));
    expect(moves).toEqual([
      'idle>thinking',
      'thinking>tool_calling',
      'tool_calling>thinking',
      'thinking>outputting',
      'outputting>completed',
    ]);
    // The answer prompt saw both results; the memory keeps the exchange and the summary.
    // (the last call is the follow-up: suggested next inputs, summary and facts of the streamed answer)
    const answerPrompt = h.model.calls.at(-2)?.messages[0]?.content ?? '';
    expect(answerPrompt).toContain('weather in Beijing: fine');
    expect(answerPrompt).toContain('air_quality in Beijing: fine');
    await expect(memory.sessionSummary('t-assistant')).resolves.toContain('Wear a coat');
    expect(AssistantCheckpoint.parse(h.record().agentState)).toMatchObject({
      state: 'completed',
      answer: { suggestions: ['And tomorrow?', 'What about Shanghai?'] },
    });
    h.model.assertDone();
  });

  it('keeps the streamed answer when its follow-up (suggestions, summary) fails: completed, warned, remembered', async () => {
    // The answer reached the user piece by piece; a failed follow-up must not turn the goal into a failure that drops it.
    const memory = new InMemoryMemory();
    const h = startAssistant({
      tools: [],
      memory,
      script: [
        thinkAnswer(),
        { kind: 'stream', purpose: 'output', respond: 'Wear a coat.' },
        {
          kind: 'structured',
          schemaName: 'AssistantFollowUp',
          respond: () => {
            throw new ModelUnavailableError('the provider is down', { retryable: true });
          },
        },
      ],
    });
    const done = await h.pursue();
    expect(done).toMatchObject({ status: 'completed', response: 'Wear a coat.' });
    expect(h.events.find((e) => e.kind === 'assistant.output')).toMatchObject({
      content: 'Wear a coat.',
      suggestions: [],
    });
    expect(h.context.messages('warning').join('\n')).toContain('MODEL_UNAVAILABLE');
    const kept = await memory.retrieveRelevant('coat', 't-assistant', { limit: 5 });
    expect(kept.map((m) => m.text).join('\n')).toContain('Wear a coat.');
    h.model.assertDone();
  });

  it('keeps a huge answer within the bound: the pieces stop there and the kept answer says it was cut', async () => {
    // An answer past the contracts' text bound would fail the goal record and the assistant.output event.
    const huge = 'word '.repeat(Math.ceil((MAX_TEXT_CHARS + 10_000) / 5));
    const deltas: AnswerDelta[] = [];
    const h = startAssistant({
      tools: [],
      settings: { deltas: { publish: (d) => deltas.push(d) } },
      script: [thinkAnswer(), ...answer(huge)],
    });
    const done = await h.pursue();
    expect(done.status).toBe('completed');
    expect(done.response.length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    expect(done.response).toContain('[the answer was cut');
    const published = deltas.map((d) => d.text).join('');
    expect(published.length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    expect(done.response.startsWith(published.slice(0, 1_000))).toBe(true);
    const output = h.events.find((e) => e.kind === 'assistant.output');
    expect(
      AssistantOutputEvent.pick({ content: true }).safeParse({
        content: (output as { content?: unknown })?.content,
      }).success,
    ).toBe(true);
  });

  it('forces the answer from what is known after the last thinking round', async () => {
    const weather = cityTool('weather');
    const h = startAssistant({
      tools: [weather],
      settings: { maxRounds: 2 },
      script: [
        thinkCalls(['weather', 'weather in Beijing']),
        input('weather', { city: 'Beijing' }),
        thinkCalls(['weather', 'weather in Shanghai']),
        input('weather', { city: 'Shanghai' }),
        ...answer('Beijing and Shanghai are fine; I could not check more.'),
      ],
    });
    const done = await h.pursue();
    expect(done.status).toBe('completed');
    expect(weather.calls.map((c) => c.params)).toEqual([{ city: 'Beijing' }, { city: 'Shanghai' }]);
    expect(h.events.find((e) => e.kind === 'assistant.output')).toMatchObject({ forced: true });
    expect(h.events).toContainEqual(
      expect.objectContaining({ kind: 'assistant.state', to: 'outputting', reason: 'max thinking rounds' }),
    );
    expect(h.model.calls.at(-2)?.messages[0]?.content).toContain('planning rounds ran out');
    h.model.assertDone();
  });

  it('sends an input that does not match the tool schema back to the model with the reason', async () => {
    const weather = cityTool('weather');
    const h = startAssistant({
      tools: [weather],
      script: [
        thinkCalls(['weather', 'weather in Beijing']),
        input('weather', { town: 7 }),
        input('weather', { city: 'Beijing' }),
        thinkAnswer(),
        ...answer('Fine weather.'),
      ],
    });
    const done = await h.pursue();
    expect(done.status).toBe('completed');
    expect(weather.calls.map((c) => c.params)).toEqual([{ city: 'Beijing' }]);
    const repair = h.model.calls[2]?.messages.at(-1)?.content ?? '';
    expect(repair).toContain('The input was refused');
    expect(repair).toContain('city');
    h.model.assertDone();
  });

  it('moves to error with a coded reason when a tool call fails', async () => {
    const broken = fakeTool({ name: 'weather', error: { message: 'provider down', code: 'UNAVAILABLE' } });
    const h = startAssistant({
      tools: [broken],
      script: [thinkCalls(['weather', 'weather in Beijing']), input('weather', {})],
    });
    const done = await h.pursue();
    expect(done).toMatchObject({ status: 'failed', error: { code: 'TOOL_FAILED' } });
    expect(done.reason).toContain('provider down');
    expect(h.events.at(-1)).toMatchObject({ kind: 'assistant.state', from: 'tool_calling', to: 'error' });
    expect(AssistantCheckpoint.parse(h.record().agentState)).toMatchObject({
      state: 'error',
      error: { code: 'TOOL_FAILED' },
    });
    h.model.assertDone();
  });

  it('resumes a group of parallel calls from its checkpoint under the same step numbers, without new inputs', async () => {
    const gate = deferred();
    const weather = cityTool('weather', gate.promise);
    const air = cityTool('air_quality', gate.promise);
    const first = startAssistant({
      tools: [weather, air],
      script: [
        thinkCalls(['weather', 'weather in Beijing'], ['air_quality', 'air in Beijing']),
        input('weather', { city: 'Beijing' }),
        input('air_quality', { city: 'Beijing' }),
      ],
    });
    const stopped = first.pursue();
    await Promise.all([weather.whenCalled(), air.whenCalled()]);
    first.abort.abort(); // the pursuit stops while both calls run (as a crash would leave it)
    await expect(stopped).resolves.toMatchObject({ status: 'cancelled' });

    gate.resolve();
    const second = startAssistant({
      tools: [weather, air],
      from: first.record(),
      script: [thinkAnswer(), ...answer('All fine.')],
    });
    const done = await second.pursue();
    expect(done).toMatchObject({ status: 'completed', response: 'All fine.' });
    expect(second.executed.map((s) => [s.operation.tool, s.operation.parameters])).toEqual([
      ['weather', { city: 'Beijing' }],
      ['air_quality', { city: 'Beijing' }],
    ]);
    expect(second.model.calls.map((c) => c.purpose)).toEqual(['think', 'output', 'output']);
    second.model.assertDone();
  });
});
