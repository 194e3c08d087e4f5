import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION, collectServiceStats } from '@novelrag/bus';
import type { ServicesReply } from '@novelrag/contracts';

/** The services on the bus with their instances and endpoint counters ($SRV.STATS), for ops pages. */
@ApiTags('tools')
@ApiBearerAuth()
@Controller('v1/services')
export class ServicesController {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  @Get()
  @ApiOperation({ summary: 'Service instances on the bus and their endpoint statistics ($SRV.STATS)' })
  list(): Promise<ServicesReply> {
    return collectServiceStats(this.nc);
  }
}
