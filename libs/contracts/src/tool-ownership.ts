import { Buckets, MicroServiceNames } from './subjects';

/**
 * The built-in tools: served only by tool-runners, as the micro service `novelrag-tools` (the NATS config lets only
 * the tool-runner identity subscribe to their invoke subjects).
 */
export const BUILTIN_TOOLS = [
  'AspectCreateTool',
  'ResourceWriteTool',
  'ResourceRelationWriteTool',
  'ResourceFetchTool',
  'ResourceSearchTool',
  'vector_retrieve',
  'rerank',
  'grade',
  'query_rewrite',
  'memory_retrieve',
  'random_numbers',
  'web_search',
  'web_extract',
  'image_generation',
  'image_search',
] as const;

/** Admitted third-party tools by service suffix (`novelrag-tools-<suffix>` may serve exactly these names). */
export type ToolOwners = Readonly<Record<string, readonly string[]>>;

const SUFFIX = /^[A-Za-z0-9_-]{1,64}$/;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Parses `NOVELRAG_TOOL_OWNERS`: `<suffix>=<Tool>,<Tool>;<suffix>=<Tool>` (what `npm run admit-tool` prints).
 * @throws Error naming the bad part (a malformed entry, or one tool name admitted to two services or built in).
 */
export function parseToolOwners(text: string): ToolOwners {
  const owners: Record<string, string[]> = {};
  const ownerOf = new Map<string, string>();
  for (const part of text
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [suffix = '', names = ''] = part.split('=', 2).map((s) => s.trim());
    const tools = names
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (!SUFFIX.test(suffix) || tools.length === 0 || !tools.every((t) => TOOL_NAME.test(t)))
      throw new Error(`"${part}" is not <service suffix>=<Tool>[,<Tool>...]`);
    for (const tool of tools) {
      if ((BUILTIN_TOOLS as readonly string[]).includes(tool)) throw new Error(`${tool} is a built-in tool`);
      const other = ownerOf.get(tool);
      if (other !== undefined && other !== suffix)
        throw new Error(`${tool} is admitted to both ${other} and ${suffix}`);
      ownerOf.set(tool, suffix);
    }
    owners[suffix] = [...(owners[suffix] ?? []), ...tools];
  }
  return owners;
}

/**
 * Why the micro service `service` may not serve the tool `tool`, or null when it may. A tool name belongs to one
 * principal: a built-in name to `novelrag-tools` (the tool-runners); an admitted name to its third-party service.
 * Without `owners` (no tool admitted by configuration) a third-party service may serve any name that is not built in.
 */
export function toolOwnershipProblem(service: string, tool: string, owners?: ToolOwners): string | null {
  const builtin = (BUILTIN_TOOLS as readonly string[]).includes(tool);
  if (service === MicroServiceNames.tools) {
    if (builtin || !owners) return null;
    const admitted = Object.entries(owners).find(([, names]) => names.includes(tool));
    return admitted ? `${tool} is admitted to ${MicroServiceNames.toolService(admitted[0])}` : null;
  }
  if (builtin)
    return `${tool} is a built-in tool: only ${MicroServiceNames.tools} (the tool-runners) may serve it`;
  if (!owners) return null;
  const suffix = service.slice(`${MicroServiceNames.tools}-`.length);
  return owners[suffix]?.includes(tool) ? null : `${service} is not admitted to serve ${tool}`;
}

/**
 * The KV bucket where the tools of micro service `service` record their results: `tool-results` for the built-in
 * service, `tool-results-<suffix>` for a third-party one. Each is writable only by its owner's NATS identity, so no
 * principal can plant a result that another principal's runner would replay. The MCP bridge is one principal serving
 * one micro service per MCP server (`novelrag-tools-mcp-<server>`): they share its bucket `tool-results-mcp`.
 */
export function toolResultsBucket(service: string): string {
  if (service === MicroServiceNames.tools) return Buckets.toolResults;
  const prefix = `${MicroServiceNames.tools}-`;
  const suffix = service.startsWith(prefix) ? service.slice(prefix.length) : '';
  if (!SUFFIX.test(suffix)) throw new Error(`"${service}" is not a tool service name`);
  return suffix.startsWith('mcp-') ? `${Buckets.toolResults}-mcp` : `${Buckets.toolResults}-${suffix}`;
}
