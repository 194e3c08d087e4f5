import { z } from 'zod';

const flag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');

/**
 * The standard OpenTelemetry variables the services read (the OTLP exporter reads its own `OTEL_EXPORTER_OTLP_*`
 * headers, timeout and compression settings too). Tracing is off unless an OTLP endpoint or `OTEL_TRACES_EXPORTER` asks
 * for it; when off, no SDK is installed and spans cost a no-op call.
 */
export const TelemetryEnv = z.object({
  OTEL_SDK_DISABLED: flag.describe(
    '`true` turns OpenTelemetry off whatever the other `OTEL_*` variables say.',
  ),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .optional()
    .describe('`service.name` of the spans (default: the service, e.g. `orchestrator`).'),
  OTEL_RESOURCE_ATTRIBUTES: z
    .string()
    .optional()
    .describe('Extra resource attributes, `key=value` pairs separated by commas (OTel standard).'),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'console', 'none'])
    .optional()
    .describe(
      'Where spans go: `otlp` (OTLP over HTTP, JSON), `console` (stdout, for debugging) or `none`. Default: `otlp` when an OTLP endpoint is set, otherwise tracing is off.',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .optional()
    .describe(
      'OTLP/HTTP base URL of a collector (e.g. `http://otel-collector:4318`); spans go to `<url>/v1/traces`.',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url()
    .optional()
    .describe('Full OTLP/HTTP URL for spans (overrides `OTEL_EXPORTER_OTLP_ENDPOINT` for traces).'),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on')
    .describe('Sampler (OTel standard names). A goal is one trace, so a ratio samples whole goals.'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('Ratio of the `traceidratio` samplers (0..1, default 1).'),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: flag.describe(
    '`true` records prompts and completions on LLM spans (`gen_ai.input.messages` / `gen_ai.output.messages`). Off by default: model content stays out of telemetry.',
  ),
});
export type TelemetryEnv = z.infer<typeof TelemetryEnv>;

/** Which exporter the environment asks for, or null when tracing stays off. */
export function tracesExporterOf(env: TelemetryEnv): 'otlp' | 'console' | null {
  if (env.OTEL_SDK_DISABLED) return null;
  if (env.OTEL_TRACES_EXPORTER === 'none') return null;
  if (env.OTEL_TRACES_EXPORTER) return env.OTEL_TRACES_EXPORTER;
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : null;
}

/** `env` with empty `OTEL_*` values removed: empty means unset (compose files pass `${VAR:-}` through). */
export function withoutEmptyOtel(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k, v]) => !(k.startsWith('OTEL_') && v === '')));
}
