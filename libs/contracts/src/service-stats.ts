import { z } from 'zod';

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
