import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  envDetector,
  detectResources,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { type TelemetryEnv, tracesExporterOf } from './env';
import { setContentCapture } from './genai';
import { setSdkInstalled } from './spans';

export interface TracingIdentity {
  /** Default `service.name` (OTEL_SERVICE_NAME wins). */
  readonly service: string;
  readonly instanceId: string;
  readonly version: string;
}

/** The process's tracing: `enabled` false means nothing was installed (the API stays a no-op). */
export interface Tracing {
  readonly enabled: boolean;
  /** Exports what is buffered (bounded by the exporter's timeout). */
  flush(): Promise<void>;
  /** Flushes and uninstalls; the API is a no-op afterwards. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, flush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
let installed: Tracing | undefined;

/**
 * Installs the OpenTelemetry SDK for this process when the environment asks for it (see `TelemetryEnv`): a tracer
 * provider with a batch processor and the OTLP/HTTP (JSON) exporter, W3C trace-context propagation and async context
 * across awaits. Once per process: a second call (tests starting several services in one process) returns the first
 * installation. Libraries only use `@opentelemetry/api`, so when this installs nothing every span is a no-op.
 */
export function startTracing(identity: TracingIdentity, env: TelemetryEnv): Tracing {
  setContentCapture(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === true);
  if (installed) return installed;
  const kind = tracesExporterOf(env);
  if (!kind) return OFF;
  const exporter: SpanExporter =
    kind === 'console'
      ? new ConsoleSpanExporter()
      : new OTLPTraceExporter(
          env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? { url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT } : {},
        );
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        'service.name': identity.service,
        'service.namespace': 'novelrag',
        'service.instance.id': identity.instanceId,
        'service.version': identity.version,
      }),
    )
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(env),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1_000 })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setSdkInstalled(true);
  const handle: Tracing = {
    enabled: true,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
      setSdkInstalled(false);
      installed = undefined;
    },
  };
  installed = handle;
  return handle;
}

function samplerOf(env: TelemetryEnv): Sampler {
  const ratio = env.OTEL_TRACES_SAMPLER_ARG ?? 1;
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
