import type { ServiceDefinition } from '@novelrag/bus';
import { AppModule } from './app.module';
import { ToolRunnerEnv } from './config';

/** Hosts the built-in tools as NATS micro endpoints (any number of replicas share the load). */
export const toolRunnerDefinition: ServiceDefinition<ToolRunnerEnv> = {
  service: 'tool-runner',
  microName: 'novelrag-tool-runner',
  description: 'NovelRAG tool runner (built-in resource tools, isolated execution)',
  envSchema: ToolRunnerEnv,
  module: (ctx) => AppModule.forRoot(ctx),
};
