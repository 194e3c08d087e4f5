export { TelemetryEnv, tracesExporterOf, withoutEmptyOtel } from './env';
export { startTracing, type Tracing, type TracingIdentity } from './tracing';
export {
  type HeaderCarrier,
  contextOfTraceparent,
  extractTraceContext,
  hasTraceContext,
  injectTraceContext,
  traceparentOf,
} from './propagation';
export {
  type Attributes,
  type Context,
  type Span,
  type SpanStart,
  SpanKind,
  activeContext,
  activeTraceIds,
  annotateActiveSpan,
  failSpan,
  inSpan,
  runInContext,
  startSpan,
  tracer,
} from './spans';
export {
  GenAi,
  type LlmSpanResult,
  type LlmSpanStart,
  contentCaptureEnabled,
  inLlmSpan,
  recordLlmResult,
  setContentCapture,
} from './genai';
export { Metrics, metricsRegistry, metricsText, startMetrics, timed } from './metrics';
