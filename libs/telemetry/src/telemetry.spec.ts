import { context, trace } from '@opentelemetry/api';
import { TelemetryEnv, tracesExporterOf, withoutEmptyOtel } from './env';
import { contextOfTraceparent, extractTraceContext, injectTraceContext, traceparentOf } from './propagation';
import { type Span, inSpan } from './spans';
import { startTracing } from './tracing';

describe('telemetry configuration', () => {
  const exporterOf = (env: Record<string, string>) => tracesExporterOf(TelemetryEnv.parse(env));

  it('is off unless an OTLP endpoint or an exporter is configured, and OTEL_SDK_DISABLED wins', () => {
    expect(exporterOf({})).toBeNull();
    expect(exporterOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('otlp');
    expect(exporterOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      'otlp',
    );
    expect(exporterOf({ OTEL_TRACES_EXPORTER: 'console' })).toBe('console');
    expect(
      exporterOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeNull();
    expect(
      exporterOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBeNull();
  });

  it('reads an empty OTEL_* value as unset (compose passes ${VAR:-} through)', () => {
    const env = withoutEmptyOtel({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_SDK_DISABLED: '', NATS_URL: '' });
    expect(env).toEqual({ NATS_URL: '' });
    expect(tracesExporterOf(TelemetryEnv.parse(env))).toBeNull();
  });

  it('rejects a malformed value with the variable named', () => {
    const r = TelemetryEnv.safeParse({
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'nope',
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path[0]).sort()).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_TRACES_SAMPLER',
    ]);
  });
});

describe('trace context propagation while tracing is off', () => {
  it('writes no header and stores no traceparent without a span (no cost when off)', () => {
    const headers = new Map<string, string>();
    const carrier = {
      get: (k: string) => headers.get(k),
      set: (k: string, v: string) => void headers.set(k, v),
    };
    expect(injectTraceContext(carrier)).toBe(false);
    expect(headers.size).toBe(0);
    expect(traceparentOf()).toBeUndefined();
    expect(trace.getSpanContext(extractTraceContext(undefined))).toBeUndefined();
    expect(contextOfTraceparent(undefined)).toBe(context.active());
  });
});

describe('inSpan', () => {
  /** Whether the function ran inside a span of its own (the SDK path) and whether that span records. */
  const probe = (span: Span) =>
    Promise.resolve({ active: trace.getActiveSpan() !== undefined, recording: span.isRecording() });

  it('calls the function directly while no SDK is installed, through the SDK once one is, and directly again after', async () => {
    await expect(inSpan('off', {}, probe)).resolves.toEqual({ active: false, recording: false });
    // A synchronous throw still comes back as a rejection, as from the async wrapper of the SDK path.
    const thrower = (): Promise<never> => {
      throw new Error('boom');
    };
    await expect(inSpan('off', {}, thrower)).rejects.toThrow('boom');
    // Installed, sampling nothing: no export, but the function runs inside the span the SDK started.
    const tracing = startTracing(
      { service: 'test', instanceId: 'test-1', version: '0' },
      TelemetryEnv.parse({ OTEL_TRACES_EXPORTER: 'console', OTEL_TRACES_SAMPLER: 'always_off' }),
    );
    try {
      expect(tracing.enabled).toBe(true);
      await expect(inSpan('on', {}, probe)).resolves.toEqual({ active: true, recording: false });
      await expect(inSpan('on', {}, thrower)).rejects.toThrow('boom');
    } finally {
      await tracing.shutdown();
    }
    await expect(inSpan('off again', {}, probe)).resolves.toEqual({ active: false, recording: false });
  });
});
