import type { ScriptEntry } from '@novelrag/agenturn/testing';

/**
 * The model calls of a ResourceWriteTool call up to its operations (one perspective, its content, one splice that
 * creates `element` in /character with that content as its appearance).
 */
export function planningScript(element: { id: string; name: string; appearance: string }): ScriptEntry[] {
  return [
    {
      kind: 'structured',
      schemaName: 'content_perspectives',
      respond: { perspectives: [{ id: 'p1', description: 'looks', rationale: 'first impression' }] },
    },
    { kind: 'text', purpose: 'content_from_perspective', respond: element.appearance },
    {
      kind: 'structured',
      schemaName: 'resource_operations',
      respond: {
        operations: [
          {
            type: 'splice',
            uri: '/character',
            children_key: null,
            start: 0,
            end: 0,
            data_json: null,
            elements_json: JSON.stringify([element]),
          },
        ],
      },
    },
  ];
}

/** The model calls of a ResourceWriteTool call after its write: no cascade, no backlog, then `summary`. */
export function followUpScript(summary: string): ScriptEntry[] {
  return [
    {
      kind: 'structured',
      schemaName: 'required_updates',
      respond: { perspective_updates: [], relation_updates: [] },
    },
    { kind: 'structured', schemaName: 'backlog_items', respond: { backlog_items: [] } },
    { kind: 'text', purpose: 'summarize_resource_write', respond: summary },
  ];
}
