import { type SegmentData, type ToolWorkspace, emptyWorkspace } from '@novelrag/contracts';
import type { ToolContext } from '@novelrag/tool-kit';
import type { ResourceService } from '@novelrag/resource-client';
import { json } from './views';

const LABELS = {
  en: {
    none: '(no resources loaded)',
    segment: 'Resource',
    properties: 'Properties',
    children: 'Child ids',
    related: 'Related to',
  },
  zh: {
    none: '（没有已加载的资源）',
    segment: '资源',
    properties: '属性',
    children: '子元素 id',
    related: '关联到',
  },
} as const;

function labelsFor(lang?: string) {
  return lang?.toLowerCase().startsWith('zh') || lang?.toLowerCase() === 'cn' ? LABELS.zh : LABELS.en;
}

/**
 * The planner's workspace (segments in its order, hidden properties and URIs) as the store renders it, so the tool's
 * prompts read the context the planner read. `extraUris` (e.g. what a write just changed) are appended. Segments that
 * no longer resolve are left out.
 */
export async function loadWorkspace(
  resources: Pick<ResourceService, 'segments'>,
  ctx: ToolContext,
  signal: AbortSignal,
  extraUris: readonly string[] = [],
): Promise<SegmentData[]> {
  const workspace: ToolWorkspace = ctx.invocation.workspace ?? emptyWorkspace();
  const segments = [...workspace.segments];
  const known = new Set(segments.map((s) => s.uri));
  for (const uri of extraUris) {
    if (known.has(uri) || workspace.excludedUris.includes(uri)) continue;
    known.add(uri);
    segments.push({ uri, excludedProperties: [] });
  }
  if (segments.length === 0) segments.push({ uri: '/', excludedProperties: [] });
  const reply = await resources.segments(
    { segments: segments.slice(-200), excludedUris: workspace.excludedUris },
    signal,
  );
  return reply.segments;
}

interface Shown {
  readonly uri: string;
  readonly properties: Record<string, unknown>;
  readonly childIds: Record<string, readonly string[]>;
  readonly relations: Record<string, readonly string[]>;
}

function shown(segment: SegmentData): Shown | null {
  switch (segment.kind) {
    case 'root':
      return null;
    case 'aspect':
      return {
        uri: segment.uri,
        properties: segment.metadata,
        childIds: { top_child_resources: segment.rootIds },
        relations: {},
      };
    case 'element':
      return {
        uri: segment.uri,
        properties: segment.properties,
        childIds: segment.childIds,
        relations: segment.relationships,
      };
  }
}

function render(segments: readonly SegmentData[], lang: string | undefined, withChildren: boolean): string {
  const l = labelsFor(lang);
  const blocks: string[] = [];
  for (const segment of segments) {
    const s = shown(segment);
    if (!s) continue;
    const hasProps = Object.keys(s.properties).length > 0;
    const hasRelations = Object.keys(s.relations).length > 0;
    const children = Object.entries(s.childIds).filter(([, ids]) => ids.length > 0);
    if (!hasProps && !hasRelations && !(withChildren && children.length > 0)) continue;
    const lines = [`### ${l.segment} ${s.uri}`];
    if (hasProps) lines.push(`${l.properties}:`, json(s.properties));
    if (withChildren) {
      for (const [key, ids] of children) lines.push(`${l.children} (${key}): ${ids.join(', ')}`);
    }
    for (const [target, descriptions] of Object.entries(s.relations)) {
      lines.push(`${l.related} ${target}: ${descriptions.join(' ')}`);
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.length > 0 ? blocks.join('\n\n') : l.none;
}

/** For building operations: properties, non-empty child id lists and relations of each informative segment. */
export function renderForOperations(segments: readonly SegmentData[], lang?: string): string {
  return render(segments, lang, true);
}

/** For content, cascade, backlog and relation prompts: properties and relations, no children. */
export function renderForContent(segments: readonly SegmentData[], lang?: string): string {
  return render(segments, lang, false);
}
