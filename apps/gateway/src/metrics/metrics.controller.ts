import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION } from '@novelrag/bus';
import { Streams } from '@novelrag/contracts';
import { Metrics, metricsText } from '@novelrag/telemetry';
import { Public } from '../http/auth.guard';

interface TextResponse {
  setHeader(name: string, value: string): unknown;
  send(body: string): unknown;
}

/** Bound on reading the GOALS stream's depth at a scrape (a slow bus must not hold the scrape). */
const QUEUE_READ_MS = 2_000;

/**
 * `GET /metrics`: the gateway's Prometheus metrics (HTTP requests, SSE clients, the GOALS queue depth read at the
 * scrape, process metrics). Like health, reachable without an API key: it holds counts, never ids or content. The
 * other services serve their own on `NOVELRAG_METRICS_PORT`.
 */
@Public()
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  @Get()
  async metrics(@Res() res: TextResponse): Promise<void> {
    await this.readQueueDepth();
    const { contentType, body } = await metricsText();
    res.setHeader('Content-Type', contentType);
    res.send(body);
  }

  private async readQueueDepth(): Promise<void> {
    try {
      const jsm = await jetstreamManager(this.nc, { timeout: QUEUE_READ_MS });
      const info = await jsm.streams.info(Streams.goals.name);
      Metrics.goalsQueued.set(info.state.messages);
    } catch {
      // The last value stands; the scrape itself must not fail for the bus.
    }
  }
}
