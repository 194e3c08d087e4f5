import { z } from 'zod';
import { GoalRecord } from './goals';
import { ToolDescriptor } from './tools';

/**
 * Reply bodies of the public REST API that are not bus messages themselves: what the gateway documents in its OpenAPI
 * and browser clients (the dashboard) are typed by.
 */

/** A goal as the API shows it: the stored record without its KV revision. */
export const PublicGoal = GoalRecord.omit({ revision: true });
export type PublicGoal = z.infer<typeof PublicGoal>;

/** `GET /v1/goals`: a page of goals, newest first; `nextCursor` fetches the next page (null on the last). */
export const GoalPage = z.strictObject({ goals: z.array(PublicGoal), nextCursor: z.string().nullable() });
export type GoalPage = z.infer<typeof GoalPage>;

/** A tool found on the bus, with how many instances serve it. */
export const DiscoveredTool = ToolDescriptor.extend({
  instances: z.number().int().min(1),
  /** The micro service names of those instances. */
  serviceNames: z.array(z.string()),
});
export type DiscoveredTool = z.infer<typeof DiscoveredTool>;

/** `GET /v1/tools`: the tool catalogue now, and tool-like endpoints whose metadata does not decode. */
export const ToolCatalogue = z.strictObject({
  tools: z.array(DiscoveredTool),
  invalid: z.array(z.strictObject({ service: z.string(), endpoint: z.string(), reason: z.string() })),
});
export type ToolCatalogue = z.infer<typeof ToolCatalogue>;

/** `GET /health/ready`: the instance's readiness checks (503 when one fails). */
export const HealthReport = z.object({
  ok: z.boolean(),
  service: z.string(),
  instanceId: z.string(),
  version: z.string(),
  uptimeMs: z.number().nonnegative(),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
});
export type HealthReport = z.infer<typeof HealthReport>;

/** One endpoint of a running NATS micro service instance, from its `$SRV.STATS` answer. */
export const EndpointStats = z.object({
  name: z.string(),
  subject: z.string(),
  num_requests: z.number().int().nonnegative(),
  num_errors: z.number().int().nonnegative(),
  last_error: z.string().optional(),
  /** Nanoseconds, as NATS micro reports them. */
  processing_time: z.number().nonnegative(),
  average_processing_time: z.number().nonnegative(),
  queue_group: z.string().optional(),
});
export type EndpointStats = z.infer<typeof EndpointStats>;

/** One running service instance (any language) and its endpoints' counters. */
export const ServiceInstanceStats = z.object({
  name: z.string(),
  id: z.string(),
  version: z.string(),
  started: z.string(),
  endpoints: z.array(EndpointStats),
});
export type ServiceInstanceStats = z.infer<typeof ServiceInstanceStats>;

/** `GET /v1/services`: every micro service instance that answered `$SRV.STATS`, by name then id. */
export const ServicesReply = z.object({ services: z.array(ServiceInstanceStats) });
export type ServicesReply = z.infer<typeof ServicesReply>;
