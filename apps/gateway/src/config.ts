import { z } from 'zod';

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const GatewayEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;
