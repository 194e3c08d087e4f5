import type { NatsConnection } from '@nats-io/transport-node';
import {
  INPUT_SCHEMA_DIALECTS,
  type MicroEndpointInfo,
  MicroInfoResponse,
  MicroPingResponse,
  MicroSubjects,
  Subjects,
  TOOL_QUEUE_GROUP,
  type ToolMetadata,
  decodeToolMetadata,
  describeIssues,
  isToolServiceName,
} from '@novelrag/contracts';
import { z } from 'zod';
import { type CheckResult, fail, pass, skip } from './report';

/** One instance serving the tool, as `$SRV.INFO` described it. */
export interface Offer {
  readonly service: MicroInfoResponse;
  readonly endpoint: MicroEndpointInfo;
}

export interface DiscoveryFindings {
  readonly offers: readonly Offer[];
  readonly metadata?: ToolMetadata;
}

/** Every `$SRV.INFO` answer within `waitMs`: parsed ones, and the problems of those outside the contract. */
async function infoAnswers(nc: NatsConnection, waitMs: number) {
  const parsed: MicroInfoResponse[] = [];
  const problems: string[] = [];
  try {
    const replies = await nc.requestMany(MicroSubjects.all('INFO'), '', {
      strategy: 'timer',
      maxWait: waitMs,
    });
    for await (const msg of replies) {
      let body: unknown;
      try {
        body = msg.json();
      } catch {
        problems.push(`an answer to ${MicroSubjects.all('INFO')} is not JSON`);
        continue;
      }
      const info = MicroInfoResponse.safeParse(body);
      if (info.success) parsed.push(info.data);
      else problems.push(`${nameOf(body)}: ${describeIssues(info.error)}`);
    }
  } catch {
    // no responders: nobody serves anything; reported as "not found" below
  }
  return { parsed, problems };
}

const nameOf = (body: unknown) =>
  typeof body === 'object' && body !== null && 'name' in body ? String(body.name) : 'a service';

function offersOf(tool: string, infos: readonly MicroInfoResponse[]): Offer[] {
  const subject = Subjects.toolInvoke(tool);
  return infos.flatMap((service) =>
    service.endpoints.filter((e) => e.subject === subject).map((endpoint) => ({ service, endpoint })),
  );
}

/** `$SRV.INFO`: the tool is offered by a tool service, on its subject, in the tools' queue group. */
export async function checkDiscovery(
  nc: NatsConnection,
  tool: string,
  waitMs: number,
  results: CheckResult[],
): Promise<DiscoveryFindings> {
  const { parsed, problems } = await infoAnswers(nc, waitMs);
  const offers = offersOf(tool, parsed);
  const subject = Subjects.toolInvoke(tool);
  if (offers.length === 0) {
    const extra = problems.length > 0 ? `; answers outside the contract: ${problems.join(' | ')}` : '';
    results.push(fail('discovery', `no $SRV.INFO answer offers an endpoint on ${subject}${extra}`));
    return { offers };
  }
  const wrong = offers.flatMap(({ service, endpoint }) => [
    ...(isToolServiceName(service.name)
      ? []
      : [`service ${service.name} is not named novelrag-tools or novelrag-tools-<suffix>`]),
    ...(endpoint.name === tool ? [] : [`endpoint named ${endpoint.name}, not ${tool}`]),
    ...(endpoint.queue_group === TOOL_QUEUE_GROUP
      ? []
      : [
          `queue group ${String(endpoint.queue_group)}, not ${TOOL_QUEUE_GROUP} (every instance would get each call)`,
        ]),
  ]);
  const where = offers.map((o) => `${o.service.name} ${o.service.version} (${o.service.id})`).join(', ');
  results.push(
    wrong.length > 0
      ? fail('discovery', [...new Set(wrong)].join('; '))
      : pass('discovery', `offered by ${where}`),
  );
  return { offers, ...checkMetadata(offers, results) };
}

/** `$SRV.PING.<service>` and `$SRV.PING.<service>.<id>` answer with a ping response naming the service. */
export async function checkLiveness(
  nc: NatsConnection,
  offers: readonly Offer[],
  timeoutMs: number,
  results: CheckResult[],
): Promise<void> {
  const first = offers[0];
  if (!first) return void results.push(skip('liveness', 'the tool was not discovered'));
  const { name, id } = first.service;
  const problems: string[] = [];
  for (const subject of [MicroSubjects.service('PING', name), MicroSubjects.instance('PING', name, id)]) {
    try {
      const msg = await nc.request(subject, '', { timeout: timeoutMs });
      const ping = MicroPingResponse.safeParse(msg.json());
      if (!ping.success) problems.push(`${subject}: ${describeIssues(ping.error)}`);
      else if (ping.data.name !== name) problems.push(`${subject} answered for ${ping.data.name}`);
    } catch (err) {
      problems.push(`${subject}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  results.push(
    problems.length > 0
      ? fail('liveness', problems.join('; '))
      : pass('liveness', `$SRV.PING.${name}[.${id}] answered`),
  );
}

function checkMetadata(offers: readonly Offer[], results: CheckResult[]): { metadata?: ToolMetadata } {
  let metadata: ToolMetadata | undefined;
  const problems: string[] = [];
  for (const { service, endpoint } of offers) {
    try {
      metadata ??= decodeToolMetadata(endpoint.metadata ?? {});
    } catch (err) {
      problems.push(`${service.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (problems.length > 0) results.push(fail('metadata', problems.join('; ')));
  else if (metadata) {
    const m = metadata;
    const hints = `read_only=${m.readOnly} destructive=${m.destructive} idempotent=${m.idempotent}`;
    results.push(pass('metadata', `decodes (${hints}, timeout_ms=${m.timeoutMs ?? 'default'})`));
  }
  if (metadata) results.push(checkDialect(metadata.inputSchema));
  else results.push(skip('schema dialect', 'no metadata decoded'));
  return metadata ? { metadata } : {};
}

/** The schema declares a dialect the platform reads, and converts as the orchestrator converts it. */
function checkDialect(schema: Readonly<Record<string, unknown>>): CheckResult {
  const declared = schema['$schema'];
  if (declared !== undefined && !(INPUT_SCHEMA_DIALECTS as readonly unknown[]).includes(declared))
    return fail(
      'schema dialect',
      `$schema ${JSON.stringify(declared)} is none of ${INPUT_SCHEMA_DIALECTS.join(', ')}`,
    );
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return fail(
      'schema dialect',
      `the orchestrator cannot convert input_schema (${reason}): calls would go unchecked`,
    );
  }
  return pass('schema dialect', `${String(declared ?? INPUT_SCHEMA_DIALECTS[0])}, convertible`);
}
