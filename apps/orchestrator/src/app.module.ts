import { type DynamicModule, Module } from '@nestjs/common';
import type { ServiceContext } from '@novelrag/bus';
import { NextGoalController } from './deciders/next-goal.controller';
import type { OrchestratorEnv } from './config';
import { Orchestrator } from './runtime/orchestrator';
import { OrchestratorLifecycle } from './runtime/orchestrator.lifecycle';

@Module({})
export class AppModule {
  static async forRoot(ctx: ServiceContext<OrchestratorEnv>): Promise<DynamicModule> {
    const orchestrator = await Orchestrator.create(ctx);
    return {
      module: AppModule,
      imports: [ctx.bus],
      controllers: [NextGoalController],
      providers: [{ provide: Orchestrator, useValue: orchestrator }, OrchestratorLifecycle],
    };
  }
}
