import type { ServiceDefinition } from '@novelrag/bus';
import { AppModule } from './app.module';
import { GatewayEnv } from './config';
import { configureHttp } from './http/configure-http';

/** The REST/SSE front door. */
export const gatewayDefinition: ServiceDefinition<GatewayEnv> = {
  service: 'gateway',
  microName: 'novelrag-gateway',
  description: 'NovelRAG gateway (REST and SSE)',
  envSchema: GatewayEnv,
  module: (ctx) => AppModule.forRoot(ctx),
  http: (env) => ({ port: env.PORT, host: env.HOST }),
  configureHttp,
};
