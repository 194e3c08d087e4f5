import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { HealthRegistry, type HealthReport } from '@novelrag/bus';
import { Public } from '../http/auth.guard';

interface StatusResponse {
  status(code: number): unknown;
}

/** `GET /health/live` (the process answers) and `GET /health/ready` (its dependencies answer: 503 when not). */
@Public()
@Controller('health')
export class HealthHttpController {
  constructor(@Inject(HealthRegistry) private readonly health: HealthRegistry) {}

  @Get('live')
  @HttpCode(200)
  live(): { ok: true } {
    return { ok: true };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) res: StatusResponse): Promise<HealthReport> {
    const report = await this.health.report();
    res.status(report.ok ? 200 : 503);
    return report;
  }
}
