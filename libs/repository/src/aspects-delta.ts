import { z } from 'zod';
import { ResourceError } from './errors';
import { AspectRecord } from './model';

/**
 * A root list as one write changed it: afterwards it holds its first `head` ids as they were, then `ids`, then its
 * last `tail` ids as they were. An append of k ids is `{head: length, ids: those k, tail: 0}`: the size of a change,
 * not of the list.
 */
export const RootsDelta = z.object({
  aspect: z.string(),
  head: z.int().nonnegative(),
  ids: z.array(z.string()),
  tail: z.int().nonnegative(),
});
export type RootsDelta = z.infer<typeof RootsDelta>;

/**
 * What one write changed in the aspect list, in terms that do not grow with the root lists: the aspect order after
 * the write (aspects missing from it were removed), the aspects it created (whole, `put`) and the root lists it
 * changed of the others (`roots`). Idempotent: applied to the list before the write or to the list after it, it
 * gives the list after it, so a journal replayed after a crash or a store call repeated by a repair is harmless.
 */
export const AspectsDelta = z.object({
  order: z.array(z.string()),
  put: z.array(AspectRecord),
  roots: z.array(RootsDelta),
});
export type AspectsDelta = z.infer<typeof AspectsDelta>;

/** The part of a root list a write kept at each end (see `RootsDelta`). */
export interface RootsSpan {
  readonly head: number;
  readonly tail: number;
}

/** The delta that sets the whole list (a compensation; journals saved before deltas held the whole list). */
export function wholeAspects(aspects: readonly AspectRecord[]): AspectsDelta {
  return { order: aspects.map((aspect) => aspect.name), put: [...aspects], roots: [] };
}

/**
 * Throws CONFLICT when `delta` cannot apply to `aspects` (they are neither the list before its write nor after it):
 * a root list shorter than `head + tail`, an aspect changed twice, or a name of `order` that is nowhere.
 */
export function assertAspectsDeltaFits(aspects: readonly AspectRecord[], delta: AspectsDelta): void {
  const byName = new Map(aspects.map((aspect) => [aspect.name, aspect]));
  const put = new Set(delta.put.map((aspect) => aspect.name));
  const seen = new Set<string>();
  for (const change of delta.roots) {
    const list = byName.get(change.aspect)?.rootIds;
    if (
      seen.has(change.aspect) ||
      put.has(change.aspect) ||
      !list ||
      change.head + change.tail > list.length
    ) {
      throw new ResourceError(
        'CONFLICT',
        `The aspect change does not fit the stored root list of ${change.aspect} ` +
          `(${list ? `${list.length} ids` : 'absent'}; keeps ${change.head} + ${change.tail})`,
        { uri: `/${change.aspect}` },
      );
    }
    seen.add(change.aspect);
  }
  const missing = delta.order.filter((name) => !byName.has(name) && !put.has(name));
  if (missing.length > 0) {
    throw new ResourceError('CONFLICT', `The aspect change orders unknown aspect(s) ${missing.join(', ')}`, {
      uri: `/${missing[0]}`,
    });
  }
}

/**
 * The list `delta` makes of `aspects` (see `AspectsDelta`). Throws CONFLICT, changing nothing, when it does not fit
 * (`assertAspectsDeltaFits`). With `inPlace` the root lists of `aspects` are changed in place, which costs the size
 * of the change for an append (a copy costs the size of the list): for an owner of `aspects` that reads them no more
 * as they were. The records of `delta.put` become part of the result (copy the delta first if it is shared).
 */
export function applyAspectsDelta(
  aspects: readonly AspectRecord[],
  delta: AspectsDelta,
  inPlace = false,
): AspectRecord[] {
  assertAspectsDeltaFits(aspects, delta);
  const byName = new Map(aspects.map((aspect) => [aspect.name, aspect]));
  for (const aspect of delta.put) byName.set(aspect.name, aspect);
  for (const change of delta.roots) {
    const aspect = byName.get(change.aspect) as AspectRecord;
    if (inPlace) spliceInPlace(aspect.rootIds, change);
    else byName.set(change.aspect, { ...aspect, rootIds: spliced(aspect.rootIds, change) });
  }
  return delta.order.map((name) => byName.get(name) as AspectRecord);
}

function spliced(list: readonly string[], { head, ids, tail }: RootsDelta): string[] {
  return list.slice(0, head).concat(ids, list.slice(list.length - tail));
}

/** Costs `ids` + `tail` (no spread: a change may hold more ids than a call takes arguments). */
function spliceInPlace(list: string[], { head, ids, tail }: RootsDelta): void {
  const kept = list.slice(list.length - tail);
  list.length = head;
  for (const id of ids) list.push(id);
  for (const id of kept) list.push(id);
}
