import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION } from '@novelrag/bus';
import {
  type ToolDescriptor,
  decodeToolMetadata,
  isToolServiceName,
  toolFromInvokeSubject,
} from '@novelrag/contracts';

const DISCOVERY_WAIT_MS = 750;

export interface ToolListing extends ToolDescriptor {
  /** How many running instances serve it. */
  readonly instances: number;
}

/** The tool catalogue as the bus sees it now: every micro endpoint `novelrag.tools.<name>.invoke`, any language. */
@ApiTags('tools')
@ApiBearerAuth()
@Controller('v1/tools')
export class ToolsController {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  @Get()
  @ApiOperation({
    summary: 'Tools discovered on the bus ($SRV.INFO), with their metadata and instance counts',
  })
  async list(): Promise<{
    tools: ToolListing[];
    invalid: { service: string; endpoint: string; reason: string }[];
  }> {
    const client = new Svcm(this.nc as never).client({ strategy: 'timer', maxWait: DISCOVERY_WAIT_MS });
    const tools = new Map<string, ToolListing>();
    const invalid: { service: string; endpoint: string; reason: string }[] = [];
    for await (const info of await client.info()) {
      if (!isToolServiceName(info.name)) continue;
      for (const endpoint of info.endpoints ?? []) {
        const name = toolFromInvokeSubject(endpoint.subject);
        if (!name) continue;
        const known = tools.get(name);
        if (known) {
          tools.set(name, { ...known, instances: known.instances + 1 });
          continue;
        }
        try {
          const metadata = decodeToolMetadata(endpoint.metadata ?? {});
          tools.set(name, {
            name,
            subject: endpoint.subject,
            metadata,
            available: true,
            service: { name: info.name, version: info.version },
            instances: 1,
          });
        } catch (err) {
          invalid.push({
            service: info.name,
            endpoint: endpoint.subject,
            reason: err instanceof Error ? err.message : String(err),
          });
        }
      }
    }
    return { tools: [...tools.values()].sort((a, b) => a.name.localeCompare(b.name)), invalid };
  }
}
