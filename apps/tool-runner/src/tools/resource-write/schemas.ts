import { z } from 'zod';

/** Structured outputs of the ResourceWriteTool pipeline (schema names in brackets). */

/** [content_perspectives] */
export const ContentPerspectives = z.object({
  perspectives: z.array(z.object({ id: z.string(), description: z.string(), rationale: z.string() })),
});

/** [proposal_ranking] 1-based proposal numbers, best first. */
export const ProposalRanking = z.object({
  sorted_proposals: z.array(z.object({ rank: z.number().int(), proposal_number: z.number().int() })),
});

const Update = z.object({ reason: z.string(), content: z.string().min(1) });

/** [required_updates] */
export const RequiredUpdates = z.object({
  perspective_updates: z.array(Update),
  relation_updates: z.array(Update),
});
export type RequiredUpdate = z.infer<typeof Update>;

/** [relation_update_uris] */
export const RelationUpdateUris = z.object({
  source_uri: z.string().nullable(),
  target_uri: z.string().nullable(),
  error: z.string().nullable(),
});

/** [relation_update] */
export const RelationUpdate = z.object({
  source_to_target_relations: z.array(z.string().min(1)),
  target_to_source_relations: z.array(z.string().min(1)),
});

/** [backlog_items] */
export const BacklogItems = z.object({
  backlog_items: z.array(
    z.object({
      type: z.string().min(1),
      priority: z.enum(['high', 'normal', 'low']),
      description: z.string().min(1),
      context_reference: z.string().nullable(),
      search_guidance: z.string().nullable(),
      creation_guidance: z.string().nullable(),
      aspect_hint: z.string().nullable(),
      rationale: z.string().nullable(),
      target_resources: z.array(z.string()),
    }),
  ),
});
export type BacklogItem = z.infer<typeof BacklogItems>['backlog_items'][number];

/** Backlog priorities on the contract's 0..10 scale. */
export const BACKLOG_PRIORITY = { high: 8, normal: 5, low: 2 } as const;
