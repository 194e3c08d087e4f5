import { z } from 'zod';

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const GatewayEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Comma-separated API keys accepted as `Authorization: Bearer <key>` (at least 16 characters each). */
  NOVELRAG_API_KEYS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    )
    .refine((keys) => keys.every((k) => k.length >= 16), 'every key must have at least 16 characters'),
  /** Explicit opt-out of authentication for local use. */
  NOVELRAG_AUTH_DISABLED: flag.default(false),
  NOVELRAG_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(10 * 1024 * 1024)
    .default(256 * 1024),
  NOVELRAG_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(600),
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;
