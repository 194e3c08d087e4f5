import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceContext } from '@novelrag/bus';
import { HealthHttpController } from './health/health.controller';
import type { GatewayEnv } from './config';

@Module({})
export class AppModule {
  static forRoot(ctx: ServiceContext<GatewayEnv>): DynamicModule {
    return { module: AppModule, imports: [ctx.bus], controllers: [HealthHttpController] };
  }
}
