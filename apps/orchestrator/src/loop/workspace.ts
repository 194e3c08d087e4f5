import type { ToolCatalog } from '@novelrag/agenturn';
import {
  DEFAULT_SEARCH_LIMIT,
  ResourceUri,
  type SegmentData,
  type SegmentSpec,
  type ToolWorkspace,
  type WorkspaceState,
  WorkspaceState as WorkspaceStateSchema,
  emptyWorkspace,
} from '@novelrag/contracts';
import type { ContextStats, ResourceReader } from './ports';

// The bounds of the WorkspaceState contract (a larger state would not checkpoint).
const MAX_SEGMENTS = 200;
const MAX_EXCLUDED = 1_000;
const MAX_NONEXISTENT = 1_000;
const MAX_HISTORY = 200;
const MAX_URI_SHOWN = 2_048;

/** What the planner sees: visible segments in order, plus the URIs found not to exist. */
export interface ContextSnapshot {
  readonly segments: readonly SegmentData[];
  readonly nonexistentUris: readonly string[];
}

/**
 * The thread's ResourceContext: which resources are loaded (in display order, with hidden properties), which are
 * hidden, which were found not to exist, what was searched, and which tools are expanded. Rendering goes through the
 * resource-service's `segments`, so hidden properties never leave the store.
 *
 * Departures from the original, on purpose: an explicit query of a hidden URI shows it again (the workspace lives as
 * long as the thread, so a resource hidden for one goal may matter to the next), URIs that do not resolve leave the
 * segment list for `nonexistentUris` until queried again, and the root `/` cannot be hidden.
 */
export class ResourceContext {
  private state: WorkspaceState;

  constructor(
    private readonly resources: ResourceReader,
    initial: WorkspaceState = emptyWorkspace(),
  ) {
    const parsed = WorkspaceStateSchema.safeParse(initial);
    this.state = structuredClone(parsed.success ? parsed.data : emptyWorkspace());
    if (!this.state.segments.some((s) => s.uri === '/'))
      this.state.segments.unshift({ uri: '/', excludedProperties: [] });
  }

  /** A serialisable copy of the whole state. */
  toState(): WorkspaceState {
    return structuredClone(this.state);
  }

  /** The planner's context as tools receive it (visible segments in order, hidden URIs). */
  toolWorkspace(): ToolWorkspace {
    const excluded = new Set(this.state.excludedUris);
    return {
      segments: structuredClone(this.state.segments.filter((s) => !excluded.has(s.uri))),
      excludedUris: [...this.state.excludedUris],
    };
  }

  stats(): ContextStats {
    const excluded = new Set(this.state.excludedUris);
    return {
      segments: this.state.segments.filter((s) => !excluded.has(s.uri)).length,
      excludedUris: this.state.excludedUris.length,
      nonexistentUris: this.state.nonexistentUris.length,
      searches: this.state.searchHistory.length,
      expandedTools: [...this.state.expandedTools],
    };
  }

  get searchHistory(): WorkspaceState['searchHistory'] {
    return this.state.searchHistory;
  }

  get expandedTools(): readonly string[] {
    return this.state.expandedTools;
  }

  /** Loads a URI (appended to the order when new). Invalid URIs are recorded as nonexistent. An explicit query shows a hidden URI again. */
  queryResource(uri: string): void {
    const trimmed = uri.trim();
    if (!ResourceUri.safeParse(trimmed).success) {
      this.markNonexistent(trimmed);
      return;
    }
    this.state.excludedUris = this.state.excludedUris.filter((u) => u !== trimmed);
    this.state.nonexistentUris = this.state.nonexistentUris.filter((u) => u !== trimmed);
    this.ensureSegment(trimmed);
  }

  /** Searches (limit 5), loads every hit that is not hidden, and records the search. Returns the hit URIs. */
  async search(query: string, signal?: AbortSignal): Promise<string[]> {
    const text = query.trim().slice(0, 2_000);
    if (text === '') return [];
    const reply = await this.resources.search({ query: text, limit: DEFAULT_SEARCH_LIMIT }, signal);
    const uris = reply.hits.map((h) => h.uri);
    const excluded = new Set(this.state.excludedUris);
    for (const uri of uris) {
      if (excluded.has(uri)) continue;
      this.state.nonexistentUris = this.state.nonexistentUris.filter((u) => u !== uri);
      this.ensureSegment(uri);
    }
    this.state.searchHistory.push({ query: text, aspect: null, uris: uris.slice(0, 100) });
    if (this.state.searchHistory.length > MAX_HISTORY)
      this.state.searchHistory.splice(0, this.state.searchHistory.length - MAX_HISTORY);
    return uris;
  }

  /** True when this exact query was already run (the prompt tells the model not to repeat itself; this enforces it). */
  searched(query: string): boolean {
    const text = query.trim();
    return this.state.searchHistory.some((h) => h.query === text);
  }

  excludeResource(uri: string): void {
    const trimmed = uri.trim();
    if (trimmed === '/' || !ResourceUri.safeParse(trimmed).success) return;
    if (this.state.excludedUris.includes(trimmed) || this.state.excludedUris.length >= MAX_EXCLUDED) return;
    this.state.excludedUris.push(trimmed);
  }

  /** Hides one property of a segment (loading the segment when it is not there, as the original does). */
  excludeProperty(uri: string, property: string): void {
    const trimmed = uri.trim();
    const name = property.trim();
    if (name === '' || name.length > 256 || !ResourceUri.safeParse(trimmed).success) return;
    const segment = this.ensureSegment(trimmed);
    if (segment && !segment.excludedProperties.includes(name)) segment.excludedProperties.push(name);
  }

  /** New order: the listed URIs that are loaded, in the given order, then every other segment in its current order. */
  sortResources(uris: readonly string[]): void {
    const byUri = new Map(this.state.segments.map((s) => [s.uri, s]));
    const first: SegmentSpec[] = [];
    for (const uri of uris) {
      const segment = byUri.get(uri.trim());
      if (segment && !first.includes(segment)) first.push(segment);
    }
    this.state.segments = [...first, ...this.state.segments.filter((s) => !first.includes(s))];
  }

  /** Expands the named tools that the catalog has and can call; returns the names newly expanded. */
  expandTools(names: readonly string[], catalog: ToolCatalog): string[] {
    const added: string[] = [];
    for (const raw of names) {
      const name = raw.trim();
      if (!catalog.isAvailable(name) || this.state.expandedTools.includes(name)) continue;
      this.state.expandedTools.push(name);
      added.push(name);
    }
    return added;
  }

  collapseTools(names: readonly string[]): void {
    const drop = new Set(names.map((n) => n.trim()));
    this.state.expandedTools = this.state.expandedTools.filter((n) => !drop.has(n));
  }

  /** What `snapshot` depends on here: equal keys, the same request and the same nonexistent URIs. */
  snapshotKey(): string {
    const { segments, excludedUris, nonexistentUris } = this.state;
    return JSON.stringify([segments, excludedUris, nonexistentUris]);
  }

  /**
   * Renders the visible segments through the resource-service. URIs that do not resolve leave the segment list and are
   * remembered as nonexistent. Rejects with the service's coded error.
   */
  async snapshot(signal?: AbortSignal): Promise<ContextSnapshot> {
    const excluded = new Set(this.state.excludedUris);
    const visible = this.state.segments.filter((s) => !excluded.has(s.uri));
    if (visible.length === 0) return { segments: [], nonexistentUris: [...this.state.nonexistentUris] };
    const reply = await this.resources.segments(
      { segments: visible, excludedUris: [...this.state.excludedUris] },
      signal,
    );
    if (reply.missing.length > 0) {
      const missing = new Set(reply.missing);
      this.state.segments = this.state.segments.filter((s) => s.uri === '/' || !missing.has(s.uri));
      for (const uri of reply.missing) this.markNonexistent(uri);
    }
    return { segments: reply.segments, nonexistentUris: [...this.state.nonexistentUris] };
  }

  private ensureSegment(uri: string): SegmentSpec | undefined {
    const existing = this.state.segments.find((s) => s.uri === uri);
    if (existing) return existing;
    if (this.state.segments.length >= MAX_SEGMENTS) return undefined;
    const segment: SegmentSpec = { uri, excludedProperties: [] };
    this.state.segments.push(segment);
    return segment;
  }

  private markNonexistent(uri: string): void {
    const shown = uri.slice(0, MAX_URI_SHOWN);
    if (shown === '' || this.state.nonexistentUris.includes(shown)) return;
    this.state.nonexistentUris.push(shown);
    if (this.state.nonexistentUris.length > MAX_NONEXISTENT) this.state.nonexistentUris.shift();
  }
}
