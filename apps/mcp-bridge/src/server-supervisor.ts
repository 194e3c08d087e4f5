import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { MicroServiceNames } from '@novelrag/contracts';
import { type HostLogger, type HostedTool, ToolHost } from '@novelrag/tool-kit';
import { bridgedName, bridgedTool } from './bridged-tool';
import type { McpServerConfig } from './config';

export interface SupervisorOptions {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly connection: NatsConnection;
  readonly instanceId: string;
  readonly logger: HostLogger;
  /** Longest wait between restarts (the wait doubles from `minRestartMs`). */
  readonly maxRestartMs: number;
  readonly minRestartMs?: number;
  /** Bound on connecting and listing the tools. */
  readonly connectTimeoutMs?: number;
}

export type SupervisorState = 'starting' | 'serving' | 'down' | 'stopped';

/** Most tools taken from one server (pages of `tools/list`). */
const MAX_TOOLS = 500;

/**
 * Keeps one MCP server connected and its tools served on the bus as the micro service `novelrag-tools-mcp-<name>`:
 * connects (stdio child or streamable HTTP), lists the tools, hosts them with a ToolHost (at-most-once through the
 * tool-result record like every tool). A tool list change re-lists and re-announces them; a server that dies or
 * cannot be reached has its tools withdrawn (so the orchestrators stop offering them) and is restarted with
 * exponential backoff.
 */
export class ServerSupervisor {
  private client: Client | undefined;
  private host: ToolHost | undefined;
  private version = 0;
  private fingerprint = '';
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stateValue: SupervisorState = 'starting';
  private chain: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(state: SupervisorState) => void>();

  constructor(private readonly options: SupervisorOptions) {}

  get state(): SupervisorState {
    return this.stateValue;
  }

  /** The NovelRAG names of the tools served now. */
  tools: string[] = [];

  /** Calls `listener` on every state change (tests and the ready line). */
  onState(listener: (state: SupervisorState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setState(state: SupervisorState): void {
    this.stateValue = state;
    for (const l of this.listeners) l(state);
  }

  /** Runs lifecycle steps one at a time (a crash during a re-list waits for the re-list). */
  private serial(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(step).catch((err: unknown) => {
      this.options.logger.error('MCP server step failed', { server: this.options.name, error: String(err) });
    });
    return this.chain;
  }

  start(): Promise<void> {
    return this.serial(() => this.connect());
  }

  private transport(): Transport {
    const c = this.options.config;
    if (c.url)
      return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers: c.headers } });
    return new StdioClientTransport({
      command: c.command ?? '',
      args: c.args,
      env: { ...getDefaultEnvironment(), ...c.env },
      ...(c.cwd ? { cwd: c.cwd } : {}),
      stderr: 'ignore',
    });
  }

  private async connect(): Promise<void> {
    if (this.stateValue === 'stopped') return;
    const { name, logger } = this.options;
    const client = new Client({ name: `novelrag-mcp-bridge-${name}`, version: '0.1.0' });
    client.onclose = () => {
      if (this.client === client) void this.serial(() => this.lost(client, 'the connection closed'));
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client === client) void this.serial(() => this.serve(client));
    });
    this.client = client;
    const transport = this.transport();
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs ?? 30_000 });
    } catch (err) {
      return this.lost(client, `cannot connect: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.attempt = 0;
    const pid = transport instanceof StdioClientTransport ? transport.pid : undefined;
    logger.info('MCP server connected', { server: name, ...(pid ? { pid } : {}) });
    await this.serve(client);
  }

  /** Lists the server's tools and (re)starts the tool host with them under a new service version. */
  private async serve(client: Client): Promise<void> {
    if (this.client !== client || this.stateValue === 'stopped') return;
    let tools: Tool[];
    try {
      tools = await this.listTools(client);
    } catch (err) {
      return this.lost(client, `tools/list failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const fingerprint = JSON.stringify(tools);
    if (this.host && fingerprint === this.fingerprint) return;
    const hosted = this.hosted(client, tools);
    this.version += 1;
    const host = new ToolHost({
      connection: this.options.connection,
      serviceName: MicroServiceNames.toolService(`mcp-${this.options.name}`),
      version: `1.0.${this.version}`,
      description: `MCP server ${this.options.name} (through the NovelRAG MCP bridge)`,
      instanceId: this.options.instanceId,
      tools: hosted,
      logger: this.options.logger,
    });
    // The new set is served before the old one stops, so a changed list never leaves a gap.
    await host.start();
    const previous = this.host;
    this.host = host;
    this.fingerprint = fingerprint;
    this.tools = hosted.map((t) => t.name);
    await previous?.stop(5_000);
    this.setState('serving');
  }

  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: 30_000 });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS);
    return tools.slice(0, MAX_TOOLS);
  }

  /** The tools as hosted tools; a name that two MCP tools map to keeps the first (and says so). */
  private hosted(client: Client, tools: readonly Tool[]): HostedTool[] {
    const { name, config, logger } = this.options;
    const prefix = config.prefix ?? name;
    const seen = new Set<string>();
    const out: HostedTool[] = [];
    for (const tool of tools) {
      const hostedName = bridgedName(prefix, tool.name);
      if (seen.has(hostedName)) {
        logger.warn('MCP tool skipped: its name collides', { server: name, tool: tool.name });
        continue;
      }
      seen.add(hostedName);
      out.push(bridgedTool(client, prefix, tool, config.timeoutMs, name));
    }
    return out;
  }

  /** Stops serving the current tools (announced `down`: orchestrators rediscover at once). */
  private async withdraw(): Promise<void> {
    const host = this.host;
    this.host = undefined;
    this.tools = [];
    await host?.stop(5_000);
  }

  private async lost(client: Client, reason: string): Promise<void> {
    if (this.client !== client) return;
    this.client = undefined;
    await this.withdraw();
    await client.close().catch(() => undefined);
    if (this.stateValue === 'stopped') return;
    const min = this.options.minRestartMs ?? 500;
    const delay = Math.min(this.options.maxRestartMs, min * 2 ** Math.min(this.attempt, 20));
    this.attempt += 1;
    this.options.logger.warn('MCP server down; its tools are withdrawn until it is back', {
      server: this.options.name,
      reason,
      retryInMs: delay,
    });
    this.setState('down');
    this.timer = setTimeout(() => void this.serial(() => this.connect()), delay);
  }

  /** Withdraws the tools and closes the server (a stdio server's process is ended by its transport). */
  async stop(): Promise<void> {
    this.setState('stopped');
    clearTimeout(this.timer);
    await this.serial(async () => {
      const client = this.client;
      this.client = undefined;
      await this.withdraw();
      await client?.close().catch(() => undefined);
    });
  }
}
