import type { NatsConnection } from '@nats-io/transport-node';
import {
  type ToolDescriptor,
  decodeToolMetadata,
  isToolServiceName,
  toolFromInvokeSubject,
} from '@novelrag/contracts';
import { z } from 'zod';
import { gather, type GatherOptions } from './gather';

export interface DiscoveredTool extends ToolDescriptor {
  /** How many running instances serve it. */
  readonly instances: number;
  /** The micro service names of those instances (to ask `$SRV.PING.<name>` whether any still runs). */
  readonly serviceNames: readonly string[];
}

export interface InvalidToolEndpoint {
  readonly service: string;
  readonly endpoint: string;
  readonly reason: string;
}

export interface ToolDiscovery {
  readonly tools: DiscoveredTool[];
  /** Endpoints that look like tools but whose metadata does not decode (reported, never silently dropped). */
  readonly invalid: InvalidToolEndpoint[];
}

/** The part of a `$SRV.INFO` answer discovery reads (any micro service, any language: parsed, never trusted). */
const ServiceInfo = z.object({
  name: z.string(),
  version: z.string(),
  endpoints: z
    .array(z.object({ subject: z.string(), metadata: z.record(z.string(), z.string()).nullish() }))
    .nullish(),
});
type ServiceInfo = z.infer<typeof ServiceInfo>;

/**
 * Every tool on the bus now: endpoints `novelrag.tools.<name>.invoke` of micro services named `novelrag-tools[-*]`,
 * from any process in any language, found with a `$SRV.INFO` scatter-gather that ends once the answers stop arriving
 * (see `gather`). An answer that is not a service description is left out.
 */
export async function discoverTools(nc: NatsConnection, options: GatherOptions = {}): Promise<ToolDiscovery> {
  const tools = new Map<string, DiscoveredTool>();
  const invalid: InvalidToolEndpoint[] = [];
  for (const msg of await gather(nc, '$SRV.INFO', options)) {
    let info: ServiceInfo;
    try {
      info = ServiceInfo.parse(msg.json());
    } catch {
      continue;
    }
    if (!isToolServiceName(info.name)) continue;
    for (const endpoint of info.endpoints ?? []) addEndpoint(tools, invalid, info, endpoint);
  }
  return { tools: [...tools.values()].sort((a, b) => a.name.localeCompare(b.name)), invalid };
}

function addEndpoint(
  tools: Map<string, DiscoveredTool>,
  invalid: InvalidToolEndpoint[],
  info: ServiceInfo,
  endpoint: NonNullable<ServiceInfo['endpoints']>[number],
): void {
  const name = toolFromInvokeSubject(endpoint.subject);
  if (!name) return;
  const known = tools.get(name);
  if (known) {
    const serviceNames = known.serviceNames.includes(info.name)
      ? known.serviceNames
      : [...known.serviceNames, info.name];
    tools.set(name, { ...known, instances: known.instances + 1, serviceNames });
    return;
  }
  try {
    tools.set(name, {
      name,
      subject: endpoint.subject,
      metadata: decodeToolMetadata(endpoint.metadata ?? {}),
      available: true,
      service: { name: info.name, version: info.version },
      instances: 1,
      serviceNames: [info.name],
    });
  } catch (err) {
    invalid.push({
      service: info.name,
      endpoint: endpoint.subject,
      reason: err instanceof Error ? err.message : String(err),
    });
  }
}
