import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION, discoverTools, type ToolDiscovery } from '@novelrag/bus';

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
  list(): Promise<ToolDiscovery> {
    return discoverTools(this.nc);
  }
}
