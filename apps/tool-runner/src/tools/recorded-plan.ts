import { createHash } from 'node:crypto';
import { AgenturnError, ConflictError } from '@novelrag/agenturn';
import type { ToolContext } from '@novelrag/tool-kit';
import { z } from 'zod';

/**
 * A write tool's decisions, kept as notes of its invocation (`ctx.notes`, beside its at-most-once record) BEFORE it acts
 * on them, so a retry after its runner died acts on the same decision instead of making a new one (a retried write is
 * the same write). Without notes (the call does not run at most once) nothing is kept and every attempt decides anew.
 */

/** A note as stored: its value and the request (tool and parameters) it was decided for. */
const StoredNote = z.object({ request: z.string(), value: z.unknown() });

/** The fingerprint of the invocation's request: its tool and its parameters (keys in a fixed order). */
function requestOf(ctx: ToolContext): string {
  const { tool, params } = ctx.invocation;
  return createHash('sha256').update(canonicalJson({ tool, params })).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The note `name` an earlier attempt of this invocation recorded, if any and readable. A note decided for other
 * parameters (the invocation id reused for another request) is refused with CONFLICT: acting on it would carry out the
 * other request's decision. (Notes of a runner without fingerprints are taken as they are.)
 */
export async function readNote<T>(
  ctx: ToolContext,
  name: string,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  if (!ctx.notes) return undefined;
  const stored = await ctx.notes.read(name).catch((err: unknown) => {
    throw unavailable(`the ${name} of an earlier attempt could not be read`, err);
  });
  if (stored === undefined) return undefined;
  const note = StoredNote.safeParse(stored);
  if (note.success && note.data.request !== requestOf(ctx)) {
    throw new ConflictError(
      `invocation ${ctx.invocation.invocationId} was first called with other parameters (its ${name} is for ` +
        'that request); a changed call needs an invocation id of its own',
    );
  }
  const raw = note.success ? note.data.value : stored;
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
  await ctx.notes?.write(name, { request: requestOf(ctx), value }).catch((err: unknown) => {
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
