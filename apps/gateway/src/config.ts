import { z } from 'zod';

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** A comma-separated list, trimmed, empty items dropped. */
const commaList = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    );

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const GatewayEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080).describe('Port of the REST API.'),
  HOST: z.string().min(1).default('127.0.0.1').describe('Address the REST API listens on.'),
  NOVELRAG_API_KEYS: commaList()
    .refine((keys) => keys.every((k) => k.length >= 16), 'every key must have at least 16 characters')
    .describe('Comma-separated API keys (16+ characters each) accepted as `Authorization: Bearer <key>`.'),
  NOVELRAG_AUTH_DISABLED: flag
    .default(false)
    .describe(
      'Explicit opt-out of authentication for local use (`npm start` sets it when no API keys are given, and says so).',
    ),
  NOVELRAG_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(10 * 1024 * 1024)
    .default(256 * 1024)
    .describe('Largest accepted request body in bytes; a larger one is answered `413`.'),
  NOVELRAG_RATE_LIMIT_PER_MIN: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(600)
    .describe(
      'Requests per minute per API key, counted across all gateway instances (NATS KV bucket `rate-limits`), then ' +
        '`429` with `Retry-After`; responses carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
    ),
  NOVELRAG_CORS_ORIGINS: commaList()
    .refine(
      (origins) => origins.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)),
      'every origin must be `*` or scheme://host[:port] without a path',
    )
    .describe(
      'Comma-separated origins (`https://ops.example.com`) whose pages may call the API from a browser (CORS); `*` allows any origin. Empty (the default): no CORS headers, so only same-origin pages (the dashboard at /ui) can.',
    ),
  NOVELRAG_DASHBOARD_DIR: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The built dashboard served at /ui (default: apps/dashboard/dist next to this app); `off` serves none.',
    ),
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;
