import type { ServiceDefinition } from '@novelrag/bus';
import { AppModule, type ToolRunnerOverrides } from './app.module';
import { ToolRunnerEnv } from './config';

/** The tool runner with test or demo seams (a scripted model, a seeded random source). */
export function toolRunnerDefinitionWith(overrides: ToolRunnerOverrides): ServiceDefinition<ToolRunnerEnv> {
  return {
    service: 'tool-runner',
    microName: 'novelrag-tool-runner',
    description: 'NovelRAG tool runner (built-in resource tools, isolated execution)',
    envSchema: ToolRunnerEnv,
    module: (ctx) => AppModule.forRoot(ctx, overrides),
  };
}

/** Hosts the built-in tools as NATS micro endpoints (any number of replicas share the load). */
export const toolRunnerDefinition: ServiceDefinition<ToolRunnerEnv> = toolRunnerDefinitionWith({});
