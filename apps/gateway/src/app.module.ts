import { type DynamicModule, Module } from '@nestjs/common';
import { EnvError, type ServiceContext } from '@novelrag/bus';
import type { GatewayEnv } from './config';
import { EventsController } from './events/events.controller';
import { GoalsController } from './goals/goals.controller';
import { GoalsService } from './goals/goals.service';
import { HealthHttpController } from './health/health.controller';
import { McpController } from './mcp/mcp.controller';
import { MetricsController } from './metrics/metrics.controller';
import { resourceServiceProvider } from './resources/resource-service.provider';
import { ProjectsController } from './projects/projects.controller';
import { ResourcesController } from './resources/resources.controller';
import { GoalSummariesController } from './summaries/goal-summaries.controller';
import { ServicesController } from './services/services.controller';
import { ThreadMemoryController, threadMemoryProvider } from './threads/thread-memory.controller';
import { TOOL_OWNERS, ToolsController } from './tools/tools.controller';

/** Every HTTP controller of the gateway (also what the OpenAPI document is built from without a running system). */
export const GATEWAY_CONTROLLERS = [
  HealthHttpController,
  MetricsController,
  GoalsController,
  GoalSummariesController,
  EventsController,
  ResourcesController,
  ProjectsController,
  ToolsController,
  ServicesController,
  ThreadMemoryController,
  McpController,
];

@Module({})
export class AppModule {
  static forRoot(ctx: ServiceContext<GatewayEnv>): DynamicModule {
    if (!ctx.env.NOVELRAG_AUTH_DISABLED && ctx.env.NOVELRAG_API_KEYS.length === 0) {
      throw new EnvError(
        'invalid environment:\n  NOVELRAG_API_KEYS: set at least one API key, or NOVELRAG_AUTH_DISABLED=true for local use',
      );
    }
    return {
      module: AppModule,
      imports: [ctx.bus],
      controllers: GATEWAY_CONTROLLERS,
      providers: [
        GoalsService,
        resourceServiceProvider,
        threadMemoryProvider,
        { provide: TOOL_OWNERS, useValue: ctx.env.NOVELRAG_TOOL_OWNERS },
      ],
    };
  }
}
