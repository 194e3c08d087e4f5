import { z } from 'zod';

// Request schemas of the resource service's NATS API. Operations and aspect configs are validated further by the
// domain (their exact rules live there); here we bound sizes and shapes.
const Uri = z.string().min(1).max(1_024);
const Name = z.string().min(1).max(128);
const MAX_OPS = 200;

export const FindRequest = z.strictObject({ uri: Uri });
export const SearchRequest = z.strictObject({
  query: z.string().trim().min(1).max(1_000),
  aspect: Name.optional(),
  limit: z.number().int().min(1).max(100).default(5),
});
export const SegmentsRequest = z.strictObject({
  segments: z
    .array(
      z.strictObject({ uri: Uri, excludedProperties: z.array(z.string().max(256)).max(500).default([]) }),
    )
    .max(500),
  excludedUris: z.array(Uri).max(5_000).default([]),
});
export const ApplyRequest = z.strictObject({
  operations: z.array(z.unknown()).min(1).max(MAX_OPS),
  group: z.string().min(1).max(128).optional(),
});
export const RelationshipsRequest = z.strictObject({
  source: Uri,
  target: Uri,
  relationships: z.array(z.string().max(2_000)).max(100),
  group: z.string().min(1).max(128).optional(),
});
export const AspectCreateRequest = z.strictObject({
  name: Name,
  config: z.record(z.string(), z.unknown()).default({}),
  group: z.string().min(1).max(128).optional(),
});
export const AspectRemoveRequest = z.strictObject({
  name: Name,
  group: z.string().min(1).max(128).optional(),
});
export const OperationsRequest = z.strictObject({
  limit: z.number().int().min(1).max(100).default(10),
  stack: z.enum(['undo', 'redo']).default('undo'),
});
export const BacklogAddRequest = z.strictObject({
  content: z.string().trim().min(1).max(10_000),
  priority: z.number().int().min(0).max(10).optional(),
});
export const BacklogListRequest = z.strictObject({ limit: z.number().int().min(1).max(1_000).optional() });
export const BacklogRemoveRequest = z.strictObject({ id: z.string().min(1).max(128) });
export const EmptyRequest = z.strictObject({});
