import { ConfigError } from '../errors/errors';
import type { SchematicTool } from './schematic-tool';

/** A tool in a catalog, with whether it can currently be called (a remote tool with no responders cannot). */
export interface ToolCatalogEntry {
  readonly tool: SchematicTool;
  readonly available: boolean;
}

/**
 * A read-only map from tool name to tool. Unavailable tools stay listed (so prompts can show them as such) but
 * `callable` leaves them out and executors refuse them. Build a new catalog to change it.
 */
export class ToolCatalog {
  private readonly entries: ReadonlyMap<string, ToolCatalogEntry>;

  /** Throws `ConfigError` on a duplicate tool name. Plain tools are available. */
  constructor(tools: Iterable<SchematicTool | ToolCatalogEntry> = []) {
    const map = new Map<string, ToolCatalogEntry>();
    for (const item of tools) {
      const entry: ToolCatalogEntry = 'tool' in item ? item : { tool: item, available: true };
      if (map.has(entry.tool.name))
        throw new ConfigError(`duplicate tool name "${entry.tool.name}" in catalog`);
      map.set(entry.tool.name, entry);
    }
    this.entries = map;
  }

  static of(...tools: SchematicTool[]): ToolCatalog {
    return new ToolCatalog(tools);
  }

  get size(): number {
    return this.entries.size;
  }

  /** All names, in insertion order. */
  get names(): readonly string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The tool, available or not; undefined when unknown. */
  get(name: string): SchematicTool | undefined {
    return this.entries.get(name)?.tool;
  }

  /** False for unknown tools. */
  isAvailable(name: string): boolean {
    return this.entries.get(name)?.available ?? false;
  }

  /** Every entry, in insertion order. */
  list(): readonly ToolCatalogEntry[] {
    return [...this.entries.values()];
  }

  /** The tools that can be called now. */
  callable(): readonly SchematicTool[] {
    return this.list()
      .filter((e) => e.available)
      .map((e) => e.tool);
  }

  /** A copy with the availability of the named tools set; unknown names are ignored. */
  withAvailability(available: ReadonlyMap<string, boolean> | Readonly<Record<string, boolean>>): ToolCatalog {
    const lookup = available instanceof Map ? available : new Map(Object.entries(available));
    return new ToolCatalog(
      this.list().map((e) => ({ tool: e.tool, available: lookup.get(e.tool.name) ?? e.available })),
    );
  }
}
