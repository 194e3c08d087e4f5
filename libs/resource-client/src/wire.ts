import type {
  Aspect as WireAspect,
  ElementContext,
  ElementInput,
  JsonObject as WireJson,
  ResourceElement,
  ResourceOperation,
  SegmentData as WireSegment,
} from '@novelrag/contracts';
import {
  type Aspect,
  type DumpedElement,
  type ElementRecord,
  type JsonObject,
  type ReversibleAction,
  type SegmentData,
  aspectOf,
  lastSegment,
} from '@novelrag/repository';

// The wire format (camelCase, `type`-discriminated, ARCHITECTURE §3) and the domain format (the original NovelRAG
// JSON the LLM writes: `target`, `resource_uri`, inline children) meet here and only here.

/** Children keys of an aspect, for splitting dumped elements into properties and children. */
export type ChildrenKeysOf = (aspect: string) => readonly string[];

export function dumpedFromInput(input: ElementInput): DumpedElement {
  const out: Record<string, unknown> = { id: input.id };
  if (input.relationships && Object.keys(input.relationships).length > 0)
    out.relationships = input.relationships;
  Object.assign(out, input.properties ?? {});
  for (const [key, children] of Object.entries(input.children ?? {}))
    out[key] = children.map(dumpedFromInput);
  return out as DumpedElement;
}

export function inputFromDumped(dumped: DumpedElement, childrenKeys: readonly string[]): ElementInput {
  const { id, relationships, ...rest } = dumped as Record<string, unknown> & {
    id: string;
    relationships?: unknown;
  };
  const properties: Record<string, unknown> = {};
  const children: Record<string, ElementInput[]> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (childrenKeys.includes(key) && Array.isArray(value)) {
      children[key] = (value as DumpedElement[]).map((child) => inputFromDumped(child, childrenKeys));
    } else properties[key] = value;
  }
  return {
    id,
    properties: properties as WireJson,
    ...(relationships && Object.keys(relationships).length > 0
      ? { relationships: relationships as Record<string, string[]> }
      : {}),
    ...(Object.keys(children).length > 0 ? { children } : {}),
  };
}

/** Wire operation → the domain's reversible action. */
export function toAction(op: ResourceOperation): ReversibleAction {
  switch (op.type) {
    case 'property':
      return {
        method: 'apply',
        op: { target: 'property', resource_uri: op.uri, data: op.data as JsonObject },
      };
    case 'splice':
      return {
        method: 'apply',
        op: {
          target: 'resource',
          location: { resource_uri: op.location.uri, children_key: op.location.childrenKey },
          start: op.start,
          end: op.end,
          data: op.data.map(dumpedFromInput),
        },
      } as ReversibleAction;
    case 'aspect.create':
      return {
        method: 'add_aspect',
        name: op.name,
        config: {
          ...(op.metadata as JsonObject),
          ...(op.description != null ? { description: op.description } : {}),
          children_keys: op.childrenKeys,
        },
        elements: (op.elements ?? []).map(dumpedFromInput),
      } as ReversibleAction;
    case 'aspect.remove':
      return { method: 'remove_aspect', name: op.name };
    case 'relationship':
      return {
        method: 'update_relationships',
        source_uri: op.source,
        target_uri: op.target,
        relationships: op.relations,
      };
  }
}

/** Domain action (typically an inverse) → wire operation. */
export function toWireOperation(action: ReversibleAction, childrenKeysOf: ChildrenKeysOf): ResourceOperation {
  switch (action.method) {
    case 'apply': {
      const op = action.op;
      if (op.target === 'property')
        return { type: 'property', uri: op.resource_uri, data: op.data as WireJson };
      const aspect = aspectOf(op.location.resource_uri) ?? '';
      return {
        type: 'splice',
        location: { uri: op.location.resource_uri, childrenKey: op.location.children_key ?? null },
        start: op.start,
        end: op.end ?? op.start,
        data: (op.data ?? []).map((d) => inputFromDumped(d as DumpedElement, childrenKeysOf(aspect))),
      };
    }
    case 'update_relationships':
      return {
        type: 'relationship',
        source: action.source_uri,
        target: action.target_uri,
        relations: action.relationships,
      };
    case 'add_aspect': {
      const { description, children_keys: childrenKeys, ...metadata } = action.config;
      return {
        type: 'aspect.create',
        name: action.name,
        ...(typeof description === 'string' ? { description } : {}),
        childrenKeys: childrenKeys ?? [],
        metadata: metadata as WireJson,
        ...(action.elements.length > 0
          ? { elements: action.elements.map((d) => inputFromDumped(d, childrenKeys ?? [])) }
          : {}),
      };
    }
    case 'remove_aspect':
      return { type: 'aspect.remove', name: action.name };
  }
}

export function wireAspect(aspect: Aspect): WireAspect {
  return {
    name: aspect.name,
    ...(aspect.description !== undefined ? { description: aspect.description } : {}),
    childrenKeys: [...aspect.childrenKeys],
    metadata: aspect.metadata as WireJson,
  };
}

export function elementContext(record: ElementRecord): ElementContext {
  return {
    uri: record.uri,
    id: record.id,
    aspect: record.aspect,
    properties: record.properties as WireJson,
    relationships: record.relationships,
    childIds: record.children,
  };
}

/** The element with its whole subtree. */
export function resourceElement(
  record: ElementRecord,
  lookup: (uri: string) => ElementRecord | undefined,
): ResourceElement {
  const children: Record<string, ResourceElement[]> = {};
  for (const [key, ids] of Object.entries(record.children)) {
    children[key] = ids
      .map((id) => lookup(`${record.uri}/${id}`))
      .filter((r): r is ElementRecord => r !== undefined)
      .map((r) => resourceElement(r, lookup));
  }
  return {
    id: record.id,
    uri: record.uri,
    aspect: record.aspect,
    relationships: record.relationships,
    properties: record.properties as WireJson,
    children,
  };
}

export function wireSegment(segment: SegmentData): WireSegment {
  switch (segment.kind) {
    case 'root':
      return { kind: 'root', uri: '/', aspects: segment.childIds.aspects ?? [] };
    case 'aspect':
      return {
        kind: 'aspect',
        uri: segment.uri,
        name: lastSegment(segment.uri) ?? '',
        metadata: segment.properties as WireJson,
        excludedProperties: segment.excludedProperties,
        rootIds: segment.childIds.top_child_resources ?? [],
      };
    case 'element':
      return {
        kind: 'element',
        uri: segment.uri,
        id: lastSegment(segment.uri) ?? '',
        aspect: aspectOf(segment.uri) ?? '',
        properties: segment.properties as WireJson,
        excludedProperties: segment.excludedProperties,
        childIds: segment.childIds,
        relationships: segment.relationships,
      };
  }
}
