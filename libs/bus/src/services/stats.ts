import type { NatsConnection } from '@nats-io/transport-node';
import { ServiceInstanceStats, type ServicesReply } from '@novelrag/contracts';
import { gather, type GatherOptions } from '../tools/gather';

/**
 * Every NATS micro service instance on the bus now (ours and third parties'), with its endpoints' counters, from a
 * `$SRV.STATS` scatter-gather that ends once the answers stop arriving (see `gather`). Answers that do not parse are
 * left out; none at all is an empty list.
 */
export async function collectServiceStats(
  nc: NatsConnection,
  options: GatherOptions = {},
): Promise<ServicesReply> {
  const services: ServiceInstanceStats[] = [];
  for (const msg of await gather(nc, '$SRV.STATS', options)) {
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      continue;
    }
    const stats = raw as { endpoints?: unknown } | null;
    if (typeof stats !== 'object' || stats === null) continue;
    const parsed = ServiceInstanceStats.safeParse({ ...stats, endpoints: stats.endpoints ?? [] });
    if (parsed.success) services.push(parsed.data);
  }
  services.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return { services };
}
