import {
  type Attributes,
  type Context,
  INVALID_SPAN_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  context,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';

export { SpanKind, type Attributes, type Context, type Span };

/**
 * Whether `startTracing` installed an SDK in this process (the only way one is installed). Without one every span is
 * a no-op, so `inSpan` calls its function directly: no tracer lookup, span object, context switch or extra async frame
 * on paths that run per message (tool dispatch, tool requests, goal acceptance).
 */
let sdkInstalled = false;
let cachedTracer: Tracer | undefined;
/** The span `inSpan` hands to its function while tracing is off. */
const NO_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Told by `startTracing` when it installs or uninstalls the SDK. */
export function setSdkInstalled(installed: boolean): void {
  sdkInstalled = installed;
  cachedTracer = undefined;
}

/** The tracer every project span comes from (a no-op tracer while no SDK is installed). */
export function tracer(): Tracer {
  return (cachedTracer ??= trace.getTracer('novelrag'));
}

export interface SpanStart {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** Parent context (default: the active one). */
  readonly parent?: Context;
  /** Start a new trace, whatever is active. */
  readonly root?: boolean;
}

/**
 * Runs `fn` inside a new active span: an error thrown or rejected is recorded on the span (type and message only,
 * never a payload) and the span is marked as failed; the span always ends. With tracing off this costs a no-op span.
 */
export function inSpan<T>(name: string, start: SpanStart, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!sdkInstalled) {
    try {
      return fn(NO_SPAN);
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
  const parent = start.parent ?? context.active();
  return tracer().startActiveSpan(
    name,
    {
      ...(start.kind !== undefined ? { kind: start.kind } : {}),
      ...(start.attributes ? { attributes: start.attributes } : {}),
      ...(start.root ? { root: true } : {}),
    },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        failSpan(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks `span` failed with the error's type and code (messages may quote content; they are kept short). */
export function failSpan(span: Span, err: unknown, code?: string): void {
  if (!span.isRecording()) return;
  const type =
    code ??
    (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
      ? err.code
      : err instanceof Error
        ? err.name
        : 'Error');
  span.setAttribute('error.type', type);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: err instanceof Error ? err.message.slice(0, 200) : type,
  });
}

/** Trace and span id of the active span (for logs and the project's trace events), or undefined without one. */
export function activeTraceIds(
  ctx: Context = context.active(),
): { traceId: string; spanId: string } | undefined {
  const span = trace.getSpanContext(ctx);
  if (!span || !isSpanContextValid(span)) return undefined;
  return { traceId: span.traceId, spanId: span.spanId };
}

/** Adds attributes to the active span (ids learnt after it started); nothing while tracing is off. */
export function annotateActiveSpan(attributes: Attributes): void {
  if (!sdkInstalled) return;
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(attributes);
}

/** Runs `fn` with `ctx` active (spans started inside are its children). */
export function runInContext<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/** Starts a span that the caller ends (for spans that outlive one function, such as a goal's steps). */
export function startSpan(name: string, start: SpanStart): { span: Span; context: Context } {
  const parent = start.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    {
      ...(start.kind !== undefined ? { kind: start.kind } : {}),
      ...(start.attributes ? { attributes: start.attributes } : {}),
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** The active context (to hand to spans started later, outside this call). */
export function activeContext(): Context {
  return context.active();
}
