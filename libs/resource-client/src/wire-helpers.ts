import type {
  AspectDump,
  BacklogEntry as WireBacklogEntry,
  ImportRequest,
  JsonObject,
} from '@novelrag/contracts';
import {
  type BacklogEntry,
  type ElementRecord,
  type ResourceRepository,
  type ReversibleAction,
  ResourceError,
  canonicalJson,
  dumped,
} from '@novelrag/repository';
import { inputFromDumped, toAction, wireAspect } from './wire';

/** Backlog content is a JSON object on the wire and canonical JSON text in the domain (so duplicates merge). */
export const BacklogCodec = {
  encode(content: JsonObject): string {
    return canonicalJson(content);
  },
  toWire(entry: BacklogEntry): WireBacklogEntry {
    let content: JsonObject;
    try {
      const parsed: unknown = JSON.parse(entry.content);
      content =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed)
          ? (parsed as JsonObject)
          : { text: entry.content };
    } catch {
      content = { text: entry.content };
    }
    return { id: entry.id, content, priority: entry.priority, createdAt: entry.createdAt };
  },
};

/** Counts elements with their children. */
export function countInputs(elements: readonly { children?: Record<string, readonly unknown[]> }[]): number {
  let n = 0;
  for (const element of elements) {
    n += 1;
    for (const children of Object.values(element.children ?? {})) n += countInputs(children as never);
  }
  return n;
}

/** The actions an import runs (one undo group): `merge` refuses existing aspects, `replace` removes them first. */
export function importActions(
  request: ImportRequest,
  exists: (aspect: string) => boolean,
): { actions: ReversibleAction[]; elements: number } {
  const actions: ReversibleAction[] = [];
  let elements = 0;
  for (const { aspect, elements: items } of request.aspects) {
    if (exists(aspect.name)) {
      if (request.mode === 'merge') {
        throw new ResourceError(
          'ALREADY_EXISTS',
          `aspect ${aspect.name} exists (use mode "replace" to overwrite it)`,
          {
            uri: `/${aspect.name}`,
          },
        );
      }
      actions.push({ method: 'remove_aspect', name: aspect.name });
    }
    actions.push(
      toAction({
        type: 'aspect.create',
        name: aspect.name,
        ...(aspect.description != null ? { description: aspect.description } : {}),
        childrenKeys: aspect.childrenKeys,
        metadata: aspect.metadata,
        elements: items,
      }),
    );
    elements += countInputs(items);
  }
  return { actions, elements };
}

/** Every aspect (or the named ones) with its elements, children inline. Unknown names → NOT_FOUND. */
export function exportAspects(repo: ResourceRepository, names?: readonly string[]): AspectDump[] {
  const snapshot = repo.snapshot();
  const byUri = new Map<string, ElementRecord>(snapshot.records.map((r) => [r.uri, r]));
  for (const name of names ?? []) {
    if (!snapshot.aspects.some((a) => a.name === name)) {
      throw new ResourceError('NOT_FOUND', `aspect ${name} does not exist`, { uri: `/${name}` });
    }
  }
  return snapshot.aspects
    .filter((aspect) => !names || names.includes(aspect.name))
    .map((aspect) => ({
      aspect: wireAspect(aspect),
      elements: aspect.rootIds
        .map((id) => byUri.get(`/${aspect.name}/${id}`))
        .filter((r): r is ElementRecord => r !== undefined)
        .map((r) =>
          inputFromDumped(
            dumped((u) => byUri.get(u), r),
            aspect.childrenKeys,
          ),
        ),
    }));
}
