import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceContext } from '@novelrag/bus';
import type { ResourceServiceEnv } from './config';
import { ResourcesModule } from './resources/resources.module';

@Module({})
export class AppModule {
  static forRoot(ctx: ServiceContext<ResourceServiceEnv>): DynamicModule {
    return { module: AppModule, imports: [ctx.bus, ResourcesModule.forRoot(ctx)] };
  }
}
