import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { type SchematicTool, ToolCatalog, type ToolCatalogEntry, toolError } from '@novelrag/agenturn';
import {
  type ContextLogger,
  type DiscoveredTool,
  type GatherOptions,
  type RefusedToolEndpoint,
  discoverTools,
  mapTransportError,
} from '@novelrag/bus';
import { Subjects, type ToolOwners, ToolsChanged, toolResultsBucket } from '@novelrag/contracts';

export interface ToolRegistryOptions {
  /** How often `$SRV.INFO` is asked again. */
  readonly refreshMs: number;
  /** When one discovery stops collecting answers (default: once they stop arriving, see `gather`). */
  readonly discovery?: GatherOptions;
  /**
   * How many discoveries in a row a tool must be missing from before it is marked unavailable without a goodbye
   * (default `MISSES_BEFORE_UNAVAILABLE`): one answer lost under load does not take a live tool away from the model.
   */
  readonly missesBeforeUnavailable?: number;
  /** Admitted third-party tools (`NOVELRAG_TOOL_OWNERS`): an endpoint whose service may not serve its name is ignored. */
  readonly owners?: ToolOwners;
  readonly log: ContextLogger;
}

/**
 * How often one tool name the catalog does not offer may trigger a discovery (see `discoverFor`), and a goal that
 * starts while no tool is known a background one (see `ensureDiscovered`).
 */
export const NAME_LOOKUP_INTERVAL_MS = 5_000;
/** Default of `ToolRegistryOptions.missesBeforeUnavailable`. */
export const MISSES_BEFORE_UNAVAILABLE = 3;

/** A remote tool as the planner sees it; it is executed by the RemoteToolExecutor, never called in process. */
function remoteTool(tool: DiscoveredTool): SchematicTool {
  const m = tool.metadata;
  return {
    name: tool.name,
    description: m.description,
    ...(m.prerequisites ? { prerequisites: m.prerequisites } : {}),
    ...(m.outputDescription ? { outputDescription: m.outputDescription } : {}),
    inputSchema: m.inputSchema,
    ...(m.timeoutMs ? { timeoutMs: m.timeoutMs } : {}),
    hints: { readOnly: m.readOnly, destructive: m.destructive, idempotent: m.idempotent },
    call: () => Promise.resolve(toolError(`${tool.name} is a remote tool`, 'INTERNAL')),
  };
}

/**
 * The tools on the bus, kept current: rediscovered when a tool host announces it started or stopped
 * (`novelrag.tools.changed`), every `refreshMs` (for hosts that never announce), and on demand, so runners and
 * third-party tools that come and go are seen. A tool becomes unavailable (still listed; the model is told it cannot
 * call it) only on firm evidence: its service said goodbye (`down` on `novelrag.tools.changed`) and the next discovery
 * did not find it elsewhere, a call to it found no responders, or it was missing from `missesBeforeUnavailable`
 * discoveries in a row. It is available again as soon as a discovery sees it.
 */
export class ToolRegistry {
  private readonly known = new Map<string, { tool: DiscoveredTool; available: boolean; missed: number }>();
  /** Discoveries started so far (numbers them). */
  private discoveries = 0;
  /** Tools whose service said goodbye, with the number of discoveries started before it did. */
  private readonly goodbyes = new Map<string, number>();
  private snapshot = new ToolCatalog();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  /** A change was announced while a discovery ran (it may have missed it): discover once more after it. */
  private again = false;
  private changes: Subscription | undefined;
  /** When a name was last looked for by `discoverFor` (epoch ms). */
  private readonly lookedFor = new Map<string, number>();
  private refusedNow: readonly RefusedToolEndpoint[] = [];
  /** When the last discovery ended (epoch ms; -Infinity before the first). */
  private discoveredAt = -Infinity;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: ToolRegistryOptions,
  ) {}

  async start(): Promise<void> {
    this.changes = this.nc.subscribe(Subjects.toolsChanged, {
      callback: (err, msg) => {
        if (err) return;
        let event: ToolsChanged | undefined;
        try {
          event = ToolsChanged.parse(msg.json());
        } catch {
          return this.options.log.warn('malformed tools change event ignored', {});
        }
        this.options.log.info('tools changed', {
          change: event.change,
          toolService: event.service,
          toolInstance: event.instance,
        });
        if (event.change === 'down')
          for (const name of event.tools) this.goodbyes.set(name, this.discoveries);
        void this.refreshAfterChange();
      },
    });
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.changes?.unsubscribe();
    this.changes = undefined;
  }

  /** Rediscovers now (concurrent callers share one discovery). Never rejects. */
  refresh(): Promise<void> {
    this.inFlight ??= this.discover().finally(() => {
      this.inFlight = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.inFlight;
  }

  /**
   * Before a goal starts, while no tool is known: waits for a discovery only as long as none has ended yet (the one at
   * start failed, or `start` was not called); after that it starts one in the background, at most once per
   * `NAME_LOOKUP_INTERVAL_MS`, and the goal goes on. A bus without tools would otherwise make every burst of goals
   * wait out a whole discovery (it ends only after a quiet gap of 100 ms or more) to find nothing again. Tool hosts
   * that start later announce themselves (`novelrag.tools.changed`); those that do not are found by that background
   * discovery, the periodic refresh, or `discoverFor` once the model names one of their tools.
   */
  async ensureDiscovered(): Promise<void> {
    if (this.known.size > 0) return;
    if (this.discoveredAt === -Infinity) return this.refresh();
    if (Date.now() - this.discoveredAt >= NAME_LOOKUP_INTERVAL_MS) void this.refresh();
  }

  private refreshAfterChange(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    return this.refresh();
  }

  private async discover(): Promise<void> {
    const number = ++this.discoveries;
    try {
      const { tools, invalid, refused } = await discoverTools(this.nc, {
        ...this.options.discovery,
        ...(this.options.owners ? { owners: this.options.owners } : {}),
      });
      this.update(tools, number);
      for (const bad of invalid)
        this.options.log.warn('tool endpoint ignored', { endpoint: bad.endpoint, reason: bad.reason });
      for (const bad of refused)
        this.options.log.warn('tool endpoint refused', {
          toolService: bad.service,
          tool: bad.tool,
          reason: bad.reason,
        });
      this.refusedNow = refused;
      this.rebuild();
      this.discoveredAt = Date.now();
    } catch (err) {
      this.options.log.warn('tool discovery failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Applies discovery number `number`: seen tools are available; unseen ones lose availability on firm evidence. */
  private update(tools: readonly DiscoveredTool[], number: number): void {
    const limit = Math.max(1, this.options.missesBeforeUnavailable ?? MISSES_BEFORE_UNAVAILABLE);
    const seen = new Set(tools.map((t) => t.name));
    for (const tool of tools) this.known.set(tool.name, { tool, available: true, missed: 0 });
    for (const [name, entry] of this.known) {
      // A goodbye said before this discovery started is answered by it: found elsewhere, or gone.
      const saidGoodbye = (this.goodbyes.get(name) ?? Infinity) < number;
      if (saidGoodbye) this.goodbyes.delete(name);
      if (seen.has(name)) continue;
      entry.missed += 1;
      if (entry.available && (saidGoodbye || entry.missed >= limit)) {
        entry.available = false;
        this.options.log.info('tool unavailable', {
          tool: name,
          reason: saidGoodbye ? 'its service stopped' : `missing from ${entry.missed} discoveries`,
        });
      }
    }
  }

  /**
   * Rediscovers now when one of `names` is unknown or marked unavailable (a tool may have appeared without announcing
   * itself), so that it is usable at once. Each name triggers this at most once per `NAME_LOOKUP_INTERVAL_MS`, so a
   * model that keeps naming a tool that does not exist costs one discovery in that interval. Never rejects.
   */
  async discoverFor(names: readonly string[]): Promise<void> {
    const now = Date.now();
    const due = names.filter(
      (name) =>
        !this.snapshot.isAvailable(name) &&
        now - (this.lookedFor.get(name) ?? -Infinity) >= NAME_LOOKUP_INTERVAL_MS,
    );
    if (due.length === 0) return;
    for (const name of due) this.lookedFor.set(name, now);
    if (this.lookedFor.size > 1_000) this.lookedFor.clear(); // names come from the model: keep the memo bounded
    await this.refresh();
  }

  /** After a call found nobody serving the tool. */
  markUnavailable(name: string): void {
    const entry = this.known.get(name);
    if (entry?.available) {
      entry.available = false;
      this.rebuild();
    }
  }

  /**
   * Whether any instance of the services that offered `name` at the last discovery still runs, asked now with
   * `$SRV.PING.<service>` (no responders is known at once): true when one answers, false when none of them has a
   * responder, undefined when that cannot be told (unknown tool, a slow or failed ping).
   */
  async served(name: string, timeoutMs = 1_000): Promise<boolean | undefined> {
    const serviceNames = this.known.get(name)?.tool.serviceNames ?? [];
    if (serviceNames.length === 0) return undefined;
    const answers = await Promise.all(
      serviceNames.map((service) =>
        this.nc.request(`$SRV.PING.${service}`, '', { timeout: timeoutMs }).then(
          () => true as const,
          (err: unknown) =>
            mapTransportError(err, `$SRV.PING.${service}`, timeoutMs).code === 'NO_RESPONDERS'
              ? false
              : undefined,
        ),
      ),
    );
    if (answers.includes(true)) return true;
    return answers.every((a) => a === false) ? false : undefined;
  }

  /**
   * The KV bucket where the principal that serves `name` records its claims and results (`tool-results` for the
   * built-in tools, `tool-results-<suffix>` for a third-party service); undefined for an unknown tool.
   */
  resultsBucketOf(name: string): string | undefined {
    const service = this.known.get(name)?.tool.service?.name;
    return service === undefined ? undefined : toolResultsBucket(service);
  }

  /**
   * Whether every instance serving `name` claims a call of it in its results bucket before running it: they say they
   * do (tool kit, results recorded) and the tool needs at-most-once (not read-only; destructive or not idempotent).
   */
  claimsExpected(name: string): boolean {
    const tool = this.known.get(name)?.tool;
    if (!tool?.claims) return false;
    const { readOnly, destructive, idempotent } = tool.metadata;
    return !readOnly && (destructive || !idempotent);
  }

  /** The declared timeout of a tool, if any. */
  timeoutOf(name: string): number | undefined {
    return this.known.get(name)?.tool.metadata.timeoutMs;
  }

  catalog(): ToolCatalog {
    return this.snapshot;
  }

  /**
   * The endpoints the last discovery refused (a service offering a name it may not serve, or an answer its instance
   * did not confirm). They are never in the catalogue: a refused name served by nobody else is simply not callable.
   */
  refused(): readonly RefusedToolEndpoint[] {
    return this.refusedNow;
  }

  /** A catalogue that always answers from the latest discovery (handed to a pursuit that may run for long). */
  live(): ToolCatalog {
    return new LiveToolCatalog(() => this.snapshot);
  }

  private rebuild(): void {
    const entries: ToolCatalogEntry[] = [...this.known.values()]
      .sort((a, b) => a.tool.name.localeCompare(b.tool.name))
      .map((e) => ({ tool: remoteTool(e.tool), available: e.available }));
    this.snapshot = new ToolCatalog(entries);
  }
}

/** ToolCatalog whose every read goes to the registry's current snapshot. */
class LiveToolCatalog extends ToolCatalog {
  constructor(private readonly current: () => ToolCatalog) {
    super();
  }
  override get size(): number {
    return this.current().size;
  }
  override get names(): readonly string[] {
    return this.current().names;
  }
  override has(name: string): boolean {
    return this.current().has(name);
  }
  override get(name: string): SchematicTool | undefined {
    return this.current().get(name);
  }
  override isAvailable(name: string): boolean {
    return this.current().isAvailable(name);
  }
  override list(): readonly ToolCatalogEntry[] {
    return this.current().list();
  }
  override callable(): readonly SchematicTool[] {
    return this.current().callable();
  }
  override withAvailability(
    available: ReadonlyMap<string, boolean> | Readonly<Record<string, boolean>>,
  ): ToolCatalog {
    return this.current().withAvailability(available);
  }
}
