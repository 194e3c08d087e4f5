import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceContext } from '@novelrag/bus';
import type { OrchestratorEnv } from './config';

@Module({})
export class AppModule {
  static forRoot(ctx: ServiceContext<OrchestratorEnv>): DynamicModule {
    return { module: AppModule, imports: [ctx.bus] };
  }
}
