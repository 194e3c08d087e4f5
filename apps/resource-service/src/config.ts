import { LlmEnv } from '@novelrag/llm';
import { z } from 'zod';

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const ResourceServiceEnv = z
  .object({
    NOVELRAG_DATA_DIR: z.string().min(1).default('data'),
    QDRANT_URL: z.url().optional(),
    QDRANT_API_KEY: z.string().min(1).optional(),
  })
  .extend(LlmEnv.shape);
export type ResourceServiceEnv = z.infer<typeof ResourceServiceEnv>;
