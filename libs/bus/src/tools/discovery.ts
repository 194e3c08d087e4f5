import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import { mapTransportError } from '../request';
import {
  type ToolDescriptor,
  decodeToolMetadata,
  isToolServiceName,
  toolFromInvokeSubject,
} from '@novelrag/contracts';

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

/**
 * Every tool on the bus now: endpoints `novelrag.tools.<name>.invoke` of micro services named `novelrag-tools[-*]`,
 * from any process in any language, found with a `$SRV.INFO` scatter-gather bounded by `waitMs`.
 */
export async function discoverTools(nc: NatsConnection, waitMs = 750): Promise<ToolDiscovery> {
  const client = new Svcm(nc as never).client({ strategy: 'timer', maxWait: waitMs });
  const tools = new Map<string, DiscoveredTool>();
  const invalid: InvalidToolEndpoint[] = [];
  try {
    for await (const info of await client.info()) {
      if (!isToolServiceName(info.name)) continue;
      for (const endpoint of info.endpoints ?? []) {
        const name = toolFromInvokeSubject(endpoint.subject);
        if (!name) continue;
        const known = tools.get(name);
        if (known) {
          const serviceNames = known.serviceNames.includes(info.name)
            ? known.serviceNames
            : [...known.serviceNames, info.name];
          tools.set(name, { ...known, instances: known.instances + 1, serviceNames });
          continue;
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
    }
  } catch (err) {
    // `$SRV.INFO` with nobody serving anything is an empty answer (every host gone), not a failed discovery.
    if (mapTransportError(err, '$SRV.INFO', waitMs).code !== 'NO_RESPONDERS') throw err;
  }
  return { tools: [...tools.values()].sort((a, b) => a.name.localeCompare(b.name)), invalid };
}
