import { z } from 'zod';

/** OpenTelemetry trace id: 32 lowercase hex digits, not all zero. */
export const TraceId = z.string().regex(/^(?!0{32})[0-9a-f]{32}$/, 'a trace id is 32 lowercase hex digits');
export type TraceId = z.infer<typeof TraceId>;

/** OpenTelemetry span id: 16 lowercase hex digits, not all zero. */
export const SpanId = z.string().regex(/^(?!0{16})[0-9a-f]{16}$/, 'a span id is 16 lowercase hex digits');
export type SpanId = z.infer<typeof SpanId>;

/** W3C trace-context `traceparent` (version 00): `00-<trace id>-<parent span id>-<flags>`. */
export const Traceparent = z
  .string()
  .regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, 'a W3C traceparent (00-<trace id>-<span id>-<flags>)');
export type Traceparent = z.infer<typeof Traceparent>;
