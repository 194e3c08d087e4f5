import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import { ServiceInstanceStats, type ServicesReply } from '@novelrag/contracts';
import { mapTransportError } from '../request';

/**
 * Every NATS micro service instance on the bus now (ours and third parties'), with its endpoints' counters, from a
 * `$SRV.STATS` scatter-gather bounded by `waitMs`. Answers that do not parse are left out; none at all is an empty list.
 */
export async function collectServiceStats(nc: NatsConnection, waitMs = 750): Promise<ServicesReply> {
  const client = new Svcm(nc as never).client({ strategy: 'timer', maxWait: waitMs });
  const services: ServiceInstanceStats[] = [];
  try {
    for await (const stats of await client.stats()) {
      const parsed = ServiceInstanceStats.safeParse({ ...stats, endpoints: stats.endpoints ?? [] });
      if (parsed.success) services.push(parsed.data);
    }
  } catch (err) {
    if (mapTransportError(err, '$SRV.STATS', waitMs).code !== 'NO_RESPONDERS') throw err;
  }
  services.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { services };
}
