import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthRegistry, type HealthReport } from '@novelrag/bus';
import { Public } from '../http/auth.guard';

interface StatusResponse {
  status(code: number): unknown;
}

/** `GET /health/live` (the process answers) and `GET /health/ready` (its dependencies answer: 503 when not). */
@Public()
@ApiTags('health')
@Controller('health')
export class HealthHttpController {
  constructor(@Inject(HealthRegistry) private readonly health: HealthRegistry) {}

  @Get('live')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers (no key needed)' })
  live(): { ok: true } {
    return { ok: true };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: NATS and the stores answer (503 with the failed checks when not)' })
  async ready(@Res({ passthrough: true }) res: StatusResponse): Promise<HealthReport> {
    const report = await this.health.report();
    res.status(report.ok ? 200 : 503);
    return report;
  }
}
