import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION, discoverTools, type ToolDiscovery } from '@novelrag/bus';
import type { ToolOwners } from '@novelrag/contracts';

/** Admitted third-party tools (`NOVELRAG_TOOL_OWNERS`), absent when none are configured. */
export const TOOL_OWNERS = Symbol('TOOL_OWNERS');

/**
 * The tool catalogue as the bus sees it now: every micro endpoint `novelrag.tools.<name>.invoke`, any language; an
 * endpoint whose service may not serve that name (or whose instance did not confirm its answer) is listed as refused.
 */
@ApiTags('tools')
@ApiBearerAuth()
@Controller('v1/tools')
export class ToolsController {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Optional() @Inject(TOOL_OWNERS) private readonly owners?: ToolOwners,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Tools discovered on the bus ($SRV.INFO), with their metadata and instance counts, and refused endpoints',
  })
  async list(): Promise<ToolDiscovery> {
    const found = await discoverTools(this.nc, undefined, this.owners ? { owners: this.owners } : {});
    // `claims` is the orchestrator's bookkeeping (which calls it may re-send), not part of the public catalogue.
    return { ...found, tools: found.tools.map(({ claims: _claims, ...tool }) => tool) };
  }
}
