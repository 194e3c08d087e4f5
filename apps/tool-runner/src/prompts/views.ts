import type { Aspect, ElementContext, FindReply, JsonObject, ResourceElement } from '@novelrag/contracts';

/**
 * The JSON views tools show to the model and return as results (the original's `context_dict`): properties spread at
 * top level next to id/uri/aspect, relationships, and child ids grouped by children key (no subtrees).
 */
export function aspectView(aspect: Aspect, rootIds?: readonly string[]): JsonObject {
  return {
    ...aspect.metadata,
    name: aspect.name,
    description: aspect.description ?? null,
    children_keys: [...aspect.childrenKeys],
    ...(rootIds ? { root_elements: rootIds.map((id) => ({ id })) } : {}),
  };
}

export function elementContextView(element: ElementContext): JsonObject {
  const children: JsonObject = {};
  for (const [key, ids] of Object.entries(element.childIds)) children[key] = ids.map((id) => ({ id }));
  return {
    id: element.id,
    uri: element.uri,
    aspect: element.aspect,
    ...element.properties,
    relationships: element.relationships,
    ...children,
  };
}

export function elementView(element: ResourceElement): JsonObject {
  const childIds: Record<string, string[]> = {};
  for (const [key, list] of Object.entries(element.children)) childIds[key] = list.map((c) => c.id);
  return elementContextView({
    uri: element.uri,
    id: element.id,
    aspect: element.aspect,
    properties: element.properties,
    relationships: element.relationships,
    childIds,
  });
}

/** The view of whatever `resources.find` returned. */
export function findView(found: FindReply): JsonObject | JsonObject[] {
  switch (found.kind) {
    case 'root':
      return found.aspects.map((a) => aspectView(a));
    case 'aspect':
      return aspectView(found.aspect, found.rootIds);
    case 'element':
      return elementView(found.element);
  }
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
