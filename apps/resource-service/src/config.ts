import { LlmEnv } from '@novelrag/llm';
import { z } from 'zod';

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const ResourceServiceEnv = z
  .object({
    NOVELRAG_DATA_DIR: z
      .string()
      .min(1)
      .default('data')
      .describe(
        'Data folder: the embedded LanceDB store lives in `<dir>/store` (`npm start` also keeps NATS data and logs here).',
      ),
    QDRANT_URL: z
      .url()
      .optional()
      .describe('Use the Qdrant server at this URL instead of the embedded LanceDB store.'),
    QDRANT_API_KEY: z.string().min(1).optional().describe('API key of the Qdrant server.'),
  })
  .extend(LlmEnv.shape);
export type ResourceServiceEnv = z.infer<typeof ResourceServiceEnv>;
