import { RecordingExecutionContext } from './recording-execution-context';
import { fakeTool } from './fake-tool';
import { deferred } from './deferred';

describe('RecordingExecutionContext', () => {
  it('records every call in order', async () => {
    const ctx = new RecordingExecutionContext({ confirmAnswers: [true], requestAnswers: ['blue'] });
    ctx.debug('d');
    ctx.info('i');
    ctx.warning('w');
    ctx.error('e');
    ctx.output('o');
    ctx.progress('indexed', '3', 'elements indexed');
    ctx.backlog({ task: 'link sect' }, 2);
    expect(await ctx.confirm('delete?', { timeoutMs: 1000 })).toBe(true);
    expect(await ctx.request('colour?')).toBe('blue');
    expect(ctx.events).toEqual([
      { kind: 'debug', message: 'd' },
      { kind: 'info', message: 'i' },
      { kind: 'warning', message: 'w' },
      { kind: 'error', message: 'e' },
      { kind: 'output', message: 'o' },
      { kind: 'progress', key: 'indexed', value: '3', description: 'elements indexed' },
      { kind: 'backlog', content: { task: 'link sect' }, priority: 2 },
      { kind: 'confirm', message: 'delete?', answer: true, timeoutMs: 1000 },
      { kind: 'request', prompt: 'colour?', answer: 'blue' },
    ]);
    expect(ctx.messages('info')).toEqual(['i']);
  });

  it('declines once the answers are used up (silence means no)', async () => {
    const ctx = new RecordingExecutionContext({ confirmAnswers: [true] });
    expect(await ctx.confirm('a')).toBe(true);
    expect(await ctx.confirm('b')).toBe(false);
    expect(await ctx.request('c')).toBeNull();
  });

  it('answers from functions', async () => {
    const ctx = new RecordingExecutionContext({
      confirmAnswers: (m) => m.includes('safe'),
      requestAnswers: async (p) => p.toUpperCase(),
    });
    expect(await ctx.confirm('safe op')).toBe(true);
    expect(await ctx.confirm('risky op')).toBe(false);
    expect(await ctx.request('abc')).toBe('ABC');
  });

  it('waitFor resolves with past or future matching events', async () => {
    const ctx = new RecordingExecutionContext();
    ctx.info('early');
    await expect(ctx.waitFor((e) => e.kind === 'info')).resolves.toEqual({ kind: 'info', message: 'early' });
    const later = ctx.waitFor((e) => e.kind === 'warning');
    ctx.warning('late');
    await expect(later).resolves.toEqual({ kind: 'warning', message: 'late' });
  });
});

describe('FakeTool', () => {
  const ctx = new RecordingExecutionContext();

  it('returns its result and records calls', async () => {
    const tool = fakeTool({ name: 'x', result: 'ok' });
    const signal = new AbortController().signal;
    expect(await tool.call(ctx, { a: 1 }, signal)).toEqual({ type: 'result', result: 'ok' });
    expect(tool.calls).toEqual([{ params: { a: 1 }, signal }]);
    expect(tool.inputSchema).toMatchObject({ type: 'object' });
  });

  it('waits for the test-controlled promise and reports when it started', async () => {
    const gate = deferred();
    const tool = fakeTool({ name: 'x', until: gate.promise, result: 'late' });
    const running = tool.call(ctx, {}, new AbortController().signal);
    await tool.whenCalled();
    gate.resolve();
    expect(await running).toEqual({ type: 'result', result: 'late' });
  });

  it('rejects with CancelledError when its signal aborts while waiting', async () => {
    const tool = fakeTool({ name: 'x', until: deferred().promise });
    const controller = new AbortController();
    const running = tool.call(ctx, {}, controller.signal);
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('returns errors and throws as configured', async () => {
    const signal = new AbortController().signal;
    expect(await fakeTool({ name: 'x', error: 'bad' }).call(ctx, {}, signal)).toEqual({
      type: 'error',
      errorMessage: 'bad',
    });
    await expect(fakeTool({ name: 'x', throws: 'boom' }).call(ctx, {}, signal)).rejects.toThrow('boom');
  });
});
