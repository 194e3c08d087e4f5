import type { ServiceDefinition } from '@novelrag/bus';
import { AppModule } from './app.module';
import { OrchestratorEnv } from './config';

/** Pursues goals with the ActionDetermineLoop, dispatching OperationPlans to tool-runners. */
export const orchestratorDefinition: ServiceDefinition<OrchestratorEnv> = {
  service: 'orchestrator',
  microName: 'novelrag-orchestrator',
  description: 'NovelRAG orchestrator (goal pursuit, ActionDetermineLoop, checkpoints, trace)',
  envSchema: OrchestratorEnv,
  module: (ctx) => AppModule.forRoot(ctx),
};
