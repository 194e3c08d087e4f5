import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { type ServiceContext } from '@novelrag/bus';
import { MicroServiceNames } from '@novelrag/contracts';
import { type HostedTool, ToolHost } from '@novelrag/tool-kit';
import type { ToolRunnerEnv } from './config';
import { BUILTIN_TOOLS, SERVICE_CONTEXT } from './tokens';

/**
 * The built-in tools on the bus, for the life of the Nest application: served at bootstrap (micro service
 * `novelrag-tools`, one endpoint per tool), and on shutdown taken off the queue group first, then given the grace
 * period to finish what is in flight before the connection drains.
 */
@Injectable()
export class ToolHostService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly host: ToolHost;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext<ToolRunnerEnv>,
    @Inject(BUILTIN_TOOLS) tools: HostedTool[],
  ) {
    const { env, identity, connection, logger } = ctx;
    this.host = new ToolHost({
      connection,
      serviceName: MicroServiceNames.tools,
      version: identity.version,
      description: 'NovelRAG built-in resource tools',
      instanceId: identity.instanceId,
      tools,
      maxConcurrency: env.NOVELRAG_TOOL_CONCURRENCY,
      defaultTimeoutMs: env.NOVELRAG_TOOL_TIMEOUT_MS,
      maxResultChars: env.NOVELRAG_TOOL_MAX_RESULT_CHARS,
      idempotency: {
        bucket: env.NOVELRAG_TOOL_RESULTS_BUCKET,
        leaseMs: env.NOVELRAG_TOOL_LEASE_MS,
        required: true,
      },
      interactions: { orphanWaitMs: env.NOVELRAG_TOOL_ORPHAN_WAIT_MS },
      logger: logger.child('ToolHost'),
    });
    ctx.health.register('tools', () => Promise.resolve({ ok: true, detail: `${this.host.running} running` }));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.host.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const left = await this.host.stop(this.ctx.env.NOVELRAG_SHUTDOWN_GRACE_MS);
    if (left > 0) this.ctx.logger.write('warn', 'stopped with invocations still running', { running: left });
  }
}
