import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonLogger } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = new JsonLogger('gateway', 'gw-1', 'debug', (line) => lines.push(JSON.parse(line)));
  return { logger, lines };
}

describe('JsonLogger', () => {
  it('redacts credentials and model content by field name, keeps ids and counts', () => {
    const { logger, lines } = capture();
    logger.write('info', 'called', {
      goalId: 'g-1',
      apiKey: 'sk-secret',
      Authorization: 'Bearer sk-secret',
      prompt: 'the whole prompt',
      messages: [{ role: 'user' }],
      promptTokens: 12,
    });
    expect(lines[0]).toMatchObject({
      msg: 'called',
      goalId: 'g-1',
      apiKey: '[redacted]',
      Authorization: '[redacted]',
      prompt: '[redacted]',
      messages: '[redacted]',
      promptTokens: 12,
    });
    expect(JSON.stringify(lines)).not.toContain('sk-secret');
  });

  it('adds the active span’s trace and span id, and none without a span', () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const { logger, lines } = capture();
      const span = trace.wrapSpanContext({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: 1,
      });
      context.with(trace.setSpan(context.active(), span), () => logger.write('info', 'inside'));
      logger.write('info', 'outside');
      expect(lines[0]).toMatchObject({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
      });
      expect(lines[1]).not.toHaveProperty('traceId');
    } finally {
      context.disable();
    }
  });
});
