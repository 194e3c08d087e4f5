import type { OperationOutcome, ToolCatalog } from '@novelrag/agenturn';
import type { JsonValue, SegmentData } from '@novelrag/contracts';

/**
 * Plain data the templates render (the templates own the wording, in each language; these own the structure).
 */

const MAX_VALUE_CHARS = 4_000;
const MAX_STEP_TEXT_CHARS = 600;

export interface SegmentView {
  /** 1-based, so the decision and the verdict can cite "segment #n". */
  readonly number: number;
  readonly uri: string;
  readonly kind: SegmentData['kind'];
  readonly properties: readonly { readonly name: string; readonly value: string }[];
  readonly excluded: readonly string[];
  readonly children: readonly { readonly key: string; readonly ids: readonly string[] }[];
  readonly relations: readonly { readonly uri: string; readonly description: string }[];
}

export interface ExpandedToolView {
  readonly name: string;
  readonly description: string;
  readonly prerequisites: string | null;
  readonly output: string | null;
  /** The JSON input schema, pretty-printed. */
  readonly schema: string;
}

export interface ToolSummaryView {
  readonly name: string;
  readonly description: string;
}

export interface ToolViews {
  /** False for the decision prompt: there the schemas travel in the tool definitions. */
  readonly show_schemas: boolean;
  readonly expanded: readonly ExpandedToolView[];
  readonly collapsed: readonly ToolSummaryView[];
  readonly unavailable: readonly ToolSummaryView[];
}

export interface StepView {
  readonly number: number;
  readonly tool: string;
  readonly status: string;
  readonly reason: string;
  readonly result: string | null;
  readonly error: string | null;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

function showValue(value: JsonValue): string {
  return clip(typeof value === 'string' ? value : JSON.stringify(value), MAX_VALUE_CHARS);
}

function propertiesOf(data: Readonly<Record<string, JsonValue>>): SegmentView['properties'] {
  return Object.entries(data).map(([name, value]) => ({ name, value: showValue(value) }));
}

export function segmentViews(segments: readonly SegmentData[]): SegmentView[] {
  return segments.map((segment, index) => {
    const number = index + 1;
    switch (segment.kind) {
      case 'root':
        return {
          number,
          uri: segment.uri,
          kind: segment.kind,
          properties: [],
          excluded: [],
          children: [{ key: 'aspects', ids: segment.aspects }],
          relations: [],
        };
      case 'aspect':
        return {
          number,
          uri: segment.uri,
          kind: segment.kind,
          properties: propertiesOf(segment.metadata),
          excluded: [...segment.excludedProperties].sort(),
          children: [{ key: 'elements', ids: segment.rootIds }],
          relations: [],
        };
      case 'element':
        return {
          number,
          uri: segment.uri,
          kind: segment.kind,
          properties: propertiesOf(segment.properties),
          excluded: [...segment.excludedProperties].sort(),
          children: Object.entries(segment.childIds).map(([key, ids]) => ({ key, ids })),
          relations: Object.entries(segment.relationships).map(([uri, descriptions]) => ({
            uri,
            description: clip(descriptions.join(' '), MAX_VALUE_CHARS),
          })),
        };
    }
  });
}

/** Splits the catalog by the workspace's expanded set: expanded (callable, full schema), collapsed, unavailable. */
export function toolViews(catalog: ToolCatalog, expanded: readonly string[], showSchemas = true): ToolViews {
  const expandedSet = new Set(expanded);
  const views = {
    show_schemas: showSchemas,
    expanded: [] as ExpandedToolView[],
    collapsed: [] as ToolSummaryView[],
    unavailable: [] as ToolSummaryView[],
  };
  for (const { tool, available } of catalog.list()) {
    if (!available) views.unavailable.push({ name: tool.name, description: tool.description });
    else if (expandedSet.has(tool.name))
      views.expanded.push({
        name: tool.name,
        description: tool.description,
        prerequisites: tool.prerequisites ?? null,
        output: tool.outputDescription ?? null,
        schema: JSON.stringify(tool.inputSchema, null, 2),
      });
    else views.collapsed.push({ name: tool.name, description: tool.description });
  }
  return views;
}

export function stepViews(steps: readonly OperationOutcome[]): StepView[] {
  return steps.map((step, index) => ({
    number: index + 1,
    tool: step.operation.tool,
    status: step.status,
    reason: clip(step.operation.reason, MAX_STEP_TEXT_CHARS),
    result: step.result === null ? null : clip(step.result, MAX_STEP_TEXT_CHARS),
    error: step.errorMessage === null ? null : clip(step.errorMessage, MAX_STEP_TEXT_CHARS),
  }));
}
