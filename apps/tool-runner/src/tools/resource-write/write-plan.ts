import { ResourceOperation } from '@novelrag/contracts';
import type { ToolContext } from '@novelrag/tool-kit';
import { z } from 'zod';
import { readNote, saveNote } from '../recorded-plan';

/**
 * What one ResourceWriteTool call decided, kept as a note of its invocation (see recorded-plan) BEFORE it acts on it:
 * the operations it generated (`proposed`, before the human is asked), then the human's answer (`confirmed` before the
 * operations are applied, or `declined`). A retry of the call after its runner died reads it back and carries on from
 * there: it applies exactly the confirmed operations (the keyed apply makes that idempotent), asks about the same
 * operations again if they were never answered, or reports the decline; it never regenerates.
 */
export const WritePlan = z.object({
  state: z.enum(['proposed', 'confirmed', 'declined']),
  operations: z.array(ResourceOperation).min(1),
});
export type WritePlan = z.infer<typeof WritePlan>;

const NOTE = 'write-plan';

/** The plan an earlier attempt of this invocation recorded, if any (none without notes). */
export function readPlan(ctx: ToolContext): Promise<WritePlan | undefined> {
  return readNote(ctx, NOTE, WritePlan);
}

/** Records the plan before the call acts on it (a plan that cannot be recorded is not acted on). */
export function savePlan(ctx: ToolContext, plan: WritePlan): Promise<void> {
  return saveNote(ctx, NOTE, plan);
}

const OUTCOME = 'write-outcome';

/** The result an earlier attempt finished with (its runner died before the result was recorded), if any. */
export function readOutcome(ctx: ToolContext): Promise<string | undefined> {
  return readNote(ctx, OUTCOME, z.string());
}

/**
 * Records the call's result once its write and follow-up are done, so a retry answers it without a model call. Best
 * effort: the write already stands, and without this note a retry only redoes the recorded follow-up.
 */
export async function saveOutcome(ctx: ToolContext, result: string): Promise<void> {
  await saveNote(ctx, OUTCOME, result).catch((err: unknown) =>
    ctx.warning(`the result was not recorded as a note: ${err instanceof Error ? err.message : String(err)}`),
  );
}
