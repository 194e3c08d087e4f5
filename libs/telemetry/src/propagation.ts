import {
  type Context,
  ROOT_CONTEXT,
  type TextMapGetter,
  type TextMapSetter,
  context,
  isSpanContextValid,
  propagation,
  trace,
} from '@opentelemetry/api';

/** Message headers as NATS (`MsgHdrs`) and most transports expose them; a missing header reads as '' or undefined. */
export interface HeaderCarrier {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
}

const setter: TextMapSetter<HeaderCarrier> = { set: (carrier, key, value) => carrier.set(key, value) };
const getter: TextMapGetter<HeaderCarrier> = {
  get: (carrier, key) => carrier.get(key) || undefined,
  keys: () => ['traceparent', 'tracestate'],
};
const recordSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => (carrier[key] = value),
};
const recordGetter: TextMapGetter<Record<string, string>> = {
  get: (carrier, key) => carrier[key],
  keys: (carrier) => Object.keys(carrier),
};

/** Whether `ctx` holds a span worth propagating (never true while tracing is off and nothing came in). */
export function hasTraceContext(ctx: Context = context.active()): boolean {
  const span = trace.getSpanContext(ctx);
  return span !== undefined && isSpanContextValid(span);
}

/** Writes W3C `traceparent` (and `tracestate`) of `ctx` into `carrier`; false (nothing written) without a span. */
export function injectTraceContext(carrier: HeaderCarrier, ctx: Context = context.active()): boolean {
  if (!hasTraceContext(ctx)) return false;
  propagation.inject(ctx, carrier, setter);
  return true;
}

/** The context a message's `traceparent` header continues (the root context when it has none or tracing is off). */
export function extractTraceContext(carrier: HeaderCarrier | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, getter);
}

/** The W3C `traceparent` of `ctx` as a string to store (e.g. in a goal record), or undefined without a span. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  if (!hasTraceContext(ctx)) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier, recordSetter);
  return carrier['traceparent'];
}

/** The context a stored `traceparent` continues (the root context when absent, invalid, or tracing is off). */
export function contextOfTraceparent(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent }, recordGetter);
}
