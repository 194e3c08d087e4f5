import { AgenturnError } from '@novelrag/agenturn';
import { ResourceOperation } from '@novelrag/contracts';
import type { ToolContext } from '@novelrag/tool-kit';
import { z } from 'zod';

/**
 * What one ResourceWriteTool call decided, kept as a note of its invocation (next to its at-most-once record) BEFORE it
 * acts on it: the operations it generated (`proposed`, before the human is asked), then the human's answer
 * (`confirmed` before the operations are applied, or `declined`). A retry of the call after its runner died reads it
 * back and carries on from there: it applies exactly the confirmed operations (the keyed apply makes that idempotent),
 * asks about the same operations again if they were never answered, or reports the decline; it never regenerates.
 */
export const WritePlan = z.object({
  state: z.enum(['proposed', 'confirmed', 'declined']),
  operations: z.array(ResourceOperation).min(1),
});
export type WritePlan = z.infer<typeof WritePlan>;

const NOTE = 'write-plan';

/** The plan an earlier attempt of this invocation recorded, if any (none without notes). */
export async function readPlan(ctx: ToolContext): Promise<WritePlan | undefined> {
  if (!ctx.notes) return undefined;
  const raw = await ctx.notes.read(NOTE).catch((err: unknown) => {
    throw unavailable('the write plan of an earlier attempt could not be read', err);
  });
  if (raw === undefined) return undefined;
  const plan = WritePlan.safeParse(raw);
  if (plan.success) return plan.data;
  ctx.warning('the write plan an earlier attempt recorded is unreadable; planning again');
  return undefined;
}

/**
 * Records the plan before the call acts on it. A plan that cannot be recorded is not acted on: the call fails as
 * retryable (nothing was asked or applied on its strength), and the retry starts from the last recorded plan.
 */
export async function savePlan(ctx: ToolContext, plan: WritePlan): Promise<void> {
  await ctx.notes?.write(NOTE, plan).catch((err: unknown) => {
    throw unavailable(`the ${plan.state} write plan could not be recorded`, err);
  });
}

function unavailable(what: string, err: unknown): AgenturnError {
  const reason = err instanceof Error ? err.message : String(err);
  return new AgenturnError('UNAVAILABLE', `${what}: ${reason}`, { fault: 'system', retryable: true });
}
