import { z } from 'zod';

/**
 * The answers of the NATS service protocol (ADR-32, `io.nats.micro.v1`) that the platform reads from every service,
 * tools included. A tool built without a micro library must answer them by hand; unknown keys are kept (the protocol
 * grows). Only the fields named here are read.
 */
const MicroIdentity = {
  /** The service name (`A-Z a-z 0-9 _ -`); tool services are `novelrag-tools` or `novelrag-tools-<suffix>`. */
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be A-Z a-z 0-9 _ - only'),
  /** This instance, unique per process (any string; the platform uses it in `$SRV.<VERB>.<name>.<id>`). */
  id: z.string().min(1),
  /** SemVer of the service. */
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/, 'must be a SemVer version'),
  /** Service metadata (strings); the tool kit puts `instance` here. */
  metadata: z.record(z.string(), z.string()).nullish(),
};

/** Reply to `$SRV.PING[.<name>[.<id>]]`. The platform only needs *a* reply: it proves an instance still runs. */
export const MicroPingResponse = z.looseObject({
  type: z.literal('io.nats.micro.v1.ping_response'),
  ...MicroIdentity,
});
export type MicroPingResponse = z.infer<typeof MicroPingResponse>;

/** One endpoint in a `$SRV.INFO` reply. For a tool: name = tool name, subject = its invoke subject. */
export const MicroEndpointInfo = z.looseObject({
  /** The tool name. */
  name: z.string().min(1),
  /** `novelrag.tools.<name>.invoke`; endpoints on other subjects are not tools. */
  subject: z.string().min(1),
  /** `novelrag-tools`, so one instance answers each call. */
  queue_group: z.string().optional(),
  /** String values only; a tool's metadata is an `EncodedToolMetadata`. */
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type MicroEndpointInfo = z.infer<typeof MicroEndpointInfo>;

/** Reply to `$SRV.INFO[.<name>[.<id>]]`: how tools are discovered. */
export const MicroInfoResponse = z.looseObject({
  type: z.literal('io.nats.micro.v1.info_response'),
  ...MicroIdentity,
  /** What the service is (not shown to the model; the endpoints' metadata is). */
  description: z.string().optional(),
  /** One per tool. */
  endpoints: z.array(MicroEndpointInfo),
});
export type MicroInfoResponse = z.infer<typeof MicroInfoResponse>;

/** Reply to `$SRV.STATS[.<name>[.<id>]]` (for operators; the platform does not read it). */
export const MicroStatsResponse = z.looseObject({
  type: z.literal('io.nats.micro.v1.stats_response'),
  ...MicroIdentity,
  started: z.string(),
  endpoints: z.array(
    z.looseObject({
      name: z.string(),
      subject: z.string(),
      num_requests: z.number().int().nonnegative(),
      num_errors: z.number().int().nonnegative(),
      processing_time: z.number().nonnegative(),
      average_processing_time: z.number().nonnegative(),
    }),
  ),
});
export type MicroStatsResponse = z.infer<typeof MicroStatsResponse>;
