import { AgenturnError } from '@novelrag/agenturn';
import type { ToolContext } from '@novelrag/tool-kit';
import type { z } from 'zod';

/**
 * A write tool's decisions, kept as notes of its invocation (`ctx.notes`, beside its at-most-once record) BEFORE it acts
 * on them, so a retry after its runner died acts on the same decision instead of making a new one (a retried write is
 * the same write). Without notes (the call does not run at most once) nothing is kept and every attempt decides anew.
 */

/** The note `name` an earlier attempt of this invocation recorded, if any and readable. */
export async function readNote<T>(
  ctx: ToolContext,
  name: string,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  if (!ctx.notes) return undefined;
  const raw = await ctx.notes.read(name).catch((err: unknown) => {
    throw unavailable(`the ${name} of an earlier attempt could not be read`, err);
  });
  if (raw === undefined) return undefined;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  ctx.warning(`the ${name} an earlier attempt recorded is unreadable; deciding again`);
  return undefined;
}

/**
 * Records the note before the call acts on it. A decision that cannot be recorded is not acted on: the call fails as
 * retryable (nothing was done on its strength), and the retry starts from the last recorded note.
 */
export async function saveNote(ctx: ToolContext, name: string, value: unknown): Promise<void> {
  await ctx.notes?.write(name, value).catch((err: unknown) => {
    throw unavailable(`the ${name} could not be recorded`, err);
  });
}

/** The plan an earlier attempt recorded under `name`, else a new one from `make`, recorded before it is returned. */
export async function recordedPlan<T>(
  ctx: ToolContext,
  name: string,
  schema: z.ZodType<T>,
  make: () => Promise<T>,
): Promise<T> {
  const earlier = await readNote(ctx, name, schema);
  if (earlier !== undefined) {
    ctx.info(`an earlier attempt of this call recorded its ${name}; carrying out exactly that`);
    return earlier;
  }
  const plan = await make();
  await saveNote(ctx, name, plan);
  return plan;
}

function unavailable(what: string, err: unknown): AgenturnError {
  const reason = err instanceof Error ? err.message : String(err);
  return new AgenturnError('UNAVAILABLE', `${what}: ${reason}`, { fault: 'system', retryable: true });
}
