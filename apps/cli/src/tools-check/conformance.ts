import type { NatsConnection } from '@nats-io/transport-node';
import type { JsonObject } from '@novelrag/contracts';
import {
  checkCall,
  checkCancel,
  checkCaps,
  checkDeadline,
  checkDuplicates,
  checkEnvelopes,
  checkMalformed,
  checkValidation,
} from './call-checks';
import { checkDiscovery, checkLiveness } from './discovery-checks';
import { ToolProbe } from './probe';
import type { CheckResult } from './report';
import { sampleValue } from './sample-params';

export interface ConformanceOptions {
  /** Valid parameters for a call (default: built from the tool's schema). */
  readonly params?: JsonObject;
  /** Parameters of a call that runs long enough to be cancelled (without them the cancel check is weaker). */
  readonly slowParams?: JsonObject;
  /** Bound on each answer. */
  readonly timeoutMs: number;
  /** How long `$SRV.INFO` collects answers. */
  readonly discoveryWaitMs?: number;
}

/**
 * Runs the tool contract against the live tool `tool`: discovery and liveness answers, metadata, schema dialect, a
 * valid call, validation errors, a passed deadline, cancel, duplicate invocation ids, error headers and size caps.
 * Every check runs even after a failure (a tool nobody discovers may still answer calls), so one report names
 * everything that is wrong.
 */
export async function runConformance(
  nc: NatsConnection,
  tool: string,
  options: ConformanceOptions,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const { offers, metadata } = await checkDiscovery(nc, tool, options.discoveryWaitMs ?? 1_000, results);
  await checkLiveness(nc, offers, options.timeoutMs, results);
  const params = options.params ?? (sampleValue(metadata?.inputSchema ?? {}) as JsonObject);
  const probe = new ToolProbe(nc, tool, options.timeoutMs);
  results.push(await checkCall(probe, params));
  results.push(await checkValidation(probe, metadata));
  results.push(await checkMalformed(probe, params));
  results.push(await checkDeadline(probe, params));
  results.push(await checkCancel(probe, params, options.slowParams));
  results.push(...(await checkDuplicates(probe, params, metadata)));
  results.push(checkEnvelopes(probe.answers));
  results.push(checkCaps(probe.answers));
  return results;
}
