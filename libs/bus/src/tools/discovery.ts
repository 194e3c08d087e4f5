import type { NatsConnection } from '@nats-io/transport-node';
import {
  type ToolDescriptor,
  type ToolOwners,
  decodeToolMetadata,
  isToolServiceName,
  toolFromInvokeSubject,
  toolOwnershipProblem,
} from '@novelrag/contracts';
import { z } from 'zod';
import { gather, type GatherOptions } from './gather';

export interface DiscoveredTool extends ToolDescriptor {
  /** How many running instances serve it. */
  readonly instances: number;
  /** The micro service names of those instances (to ask `$SRV.PING.<name>` whether any still runs). */
  readonly serviceNames: readonly string[];
  /**
   * Every instance says (service metadata `claims: "true"`, set by the tool kit when it records results) that it
   * claims an at-most-once call in its results bucket before it runs it: a call with no claim long after it was sent
   * reached nobody that runs it.
   */
  readonly claims?: true;
}

export interface InvalidToolEndpoint {
  readonly service: string;
  readonly endpoint: string;
  readonly reason: string;
}

/** An endpoint ignored because its service may not serve that tool name, or its answer could not be confirmed. */
export interface RefusedToolEndpoint {
  readonly service: string;
  readonly tool: string;
  readonly reason: string;
}

export interface ToolDiscovery {
  readonly tools: DiscoveredTool[];
  /** Endpoints that look like tools but whose metadata does not decode (reported, never silently dropped). */
  readonly invalid: InvalidToolEndpoint[];
  /** Endpoints whose owner may not serve them (reported, never used). */
  readonly refused: RefusedToolEndpoint[];
}

export interface DiscoveryOptions extends GatherOptions {
  /** Admitted third-party tools (see `toolOwnershipProblem`); without it only built-in names are reserved. */
  readonly owners?: ToolOwners;
}

/** The part of a `$SRV.INFO` answer discovery reads (any micro service, any language: parsed, never trusted). */
const ServiceInfo = z.object({
  name: z.string(),
  id: z.string(),
  version: z.string(),
  metadata: z.record(z.string(), z.string()).nullish(),
  endpoints: z
    .array(z.object({ subject: z.string(), metadata: z.record(z.string(), z.string()).nullish() }))
    .nullish(),
});
type ServiceInfo = z.infer<typeof ServiceInfo>;
type Endpoint = NonNullable<ServiceInfo['endpoints']>[number];

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,128}$/;
const CONFIRM_TIMEOUT_MS = 2_000;

/**
 * Asks the instance itself, on `$SRV.INFO.<name>.<id>`: only the identity that owns the micro service `<name>` may
 * subscribe there, so the answer is authentic, whoever answered the open `$SRV.INFO` (any identity may).
 */
async function confirm(nc: NatsConnection, claimed: ServiceInfo): Promise<ServiceInfo | null> {
  if (!INSTANCE_ID.test(claimed.id)) return null;
  try {
    const reply = await nc.request(`$SRV.INFO.${claimed.name}.${claimed.id}`, '', {
      timeout: CONFIRM_TIMEOUT_MS,
    });
    const info = ServiceInfo.safeParse(reply.json());
    return info.success && info.data.name === claimed.name && info.data.id === claimed.id ? info.data : null;
  } catch {
    return null;
  }
}

/** The tool services that answered `$SRV.INFO` (until the answers stop arriving), each confirmed by its own instance. */
async function toolServices(nc: NatsConnection, options: GatherOptions, refused: RefusedToolEndpoint[]) {
  const claimed: ServiceInfo[] = [];
  for (const msg of await gather(nc, '$SRV.INFO', options)) {
    let parsed: ReturnType<typeof ServiceInfo.safeParse>;
    try {
      parsed = ServiceInfo.safeParse(msg.json());
    } catch {
      continue; // not JSON: not a service description
    }
    const info = parsed.success ? parsed.data : undefined;
    // One claim per instance: a forged answer naming a real instance is confirmed (by that instance) only once.
    if (
      info &&
      isToolServiceName(info.name) &&
      !claimed.some((c) => c.name === info.name && c.id === info.id)
    )
      claimed.push(info);
  }
  const confirmed = await Promise.all(claimed.map((info) => confirm(nc, info)));
  const services: ServiceInfo[] = [];
  claimed.forEach((unconfirmed, i) => {
    const info = confirmed[i];
    if (info) return void services.push(info);
    for (const endpoint of unconfirmed.endpoints ?? []) {
      const tool = toolFromInvokeSubject(endpoint.subject);
      const reason = `instance ${unconfirmed.id} did not confirm its discovery answer on its own subject`;
      if (tool) refused.push({ service: unconfirmed.name, tool, reason });
    }
  });
  return services;
}

/**
 * Every tool on the bus now: endpoints `novelrag.tools.<name>.invoke` of micro services named `novelrag-tools[-*]`,
 * from any process in any language, found with a `$SRV.INFO` scatter-gather that ends once the answers stop arriving
 * (see `gather`; a number is the longest wait), each answer confirmed by the instance on its own subject, and each
 * endpoint kept only when its service may serve that name (a built-in name only by the tool-runners, an admitted
 * name only by its service); the others are `refused`.
 */
export async function discoverTools(
  nc: NatsConnection,
  wait?: number | DiscoveryOptions,
  more: DiscoveryOptions = {},
): Promise<ToolDiscovery> {
  const options: DiscoveryOptions =
    typeof wait === 'number' ? { ...more, maxWaitMs: wait } : { ...(wait ?? {}), ...more };
  const tools = new Map<string, DiscoveredTool>();
  const invalid: InvalidToolEndpoint[] = [];
  const refused: RefusedToolEndpoint[] = [];
  for (const info of await toolServices(nc, options, refused)) {
    for (const endpoint of info.endpoints ?? []) {
      const name = toolFromInvokeSubject(endpoint.subject);
      if (!name) continue;
      const problem = toolOwnershipProblem(info.name, name, options.owners);
      if (problem) refused.push({ service: info.name, tool: name, reason: problem });
      else addEndpoint(tools, invalid, info, endpoint, name);
    }
  }
  return { tools: [...tools.values()].sort((a, b) => a.name.localeCompare(b.name)), invalid, refused };
}

function addEndpoint(
  tools: Map<string, DiscoveredTool>,
  invalid: InvalidToolEndpoint[],
  info: ServiceInfo,
  endpoint: Endpoint,
  name: string,
): void {
  const known = tools.get(name);
  if (known) {
    const serviceNames = known.serviceNames.includes(info.name)
      ? known.serviceNames
      : [...known.serviceNames, info.name];
    const { claims: _claims, ...rest } = known;
    tools.set(name, {
      ...rest,
      instances: known.instances + 1,
      serviceNames,
      ...(known.claims && claimsOf(info) ? { claims: true as const } : {}),
    });
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
      ...(claimsOf(info) ? { claims: true as const } : {}),
    });
  } catch (err) {
    invalid.push({
      service: info.name,
      endpoint: endpoint.subject,
      reason: err instanceof Error ? err.message : String(err),
    });
  }
}

/** Whether the instance declares that it claims at-most-once calls before running them (see DiscoveredTool). */
function claimsOf(info: ServiceInfo): boolean {
  return info.metadata?.['claims'] === 'true';
}
