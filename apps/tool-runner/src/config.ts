import { z } from 'zod';

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const ToolRunnerEnv = z.object({});
export type ToolRunnerEnv = z.infer<typeof ToolRunnerEnv>;
