import { z } from 'zod';

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const OrchestratorEnv = z.object({});
export type OrchestratorEnv = z.infer<typeof OrchestratorEnv>;
