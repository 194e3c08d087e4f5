import type { ServiceDefinition } from '@novelrag/bus';
import { AppModule } from './app.module';
import { ResourceServiceEnv } from './config';

/** The knowledge repository: aspects, elements, operations, undo/redo, backlog, search and segments. */
export const resourceServiceDefinition: ServiceDefinition<ResourceServiceEnv> = {
  service: 'resource-service',
  microName: 'novelrag-resources',
  description: 'NovelRAG knowledge repository (resources, search, segments, undo/redo, backlog)',
  envSchema: ResourceServiceEnv,
  module: (ctx) => AppModule.forRoot(ctx),
};
