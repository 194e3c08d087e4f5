import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceContext } from '@novelrag/bus';
import type { ToolRunnerEnv } from './config';

@Module({})
export class AppModule {
  static forRoot(ctx: ServiceContext<ToolRunnerEnv>): DynamicModule {
    return { module: AppModule, imports: [ctx.bus] };
  }
}
