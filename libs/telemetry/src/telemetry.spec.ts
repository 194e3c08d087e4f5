import { context, trace } from '@opentelemetry/api';
import { TelemetryEnv, tracesExporterOf, withoutEmptyOtel } from './env';
import { contextOfTraceparent, extractTraceContext, injectTraceContext, traceparentOf } from './propagation';

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
