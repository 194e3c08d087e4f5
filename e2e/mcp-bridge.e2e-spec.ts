import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  REPO_ROOT,
  type ScenarioRule,
  type System,
  decide,
  demoScenario,
  finalize,
  installRules,
  postGoal,
  startSystem,
} from '@novelrag/testkit';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const BRIDGE = path.join(REPO_ROOT, 'apps/mcp-bridge/dist/main.js');

const RULES: ScenarioRule[] = [
  {
    id: 'mcp-discover',
    when: { schema: 'DiscoveryPlan', contains: ['[MCP]'] },
    reply: {
      json: {
        discovery_analysis: 'the echo tool is needed',
        search_queries: [],
        query_resources: [],
        expand_tools: ['everything_echo'],
      },
    },
  },
  finalize('mcp-done', ['[MCP]', '[success] everything_echo'], 'The MCP server echoed.'),
  decide('mcp-echo', ['[MCP]'], 'everything_echo', { message: 'hello through the bridge' }),
];

interface LogLine {
  msg: string;
  pid?: number;
  server?: string;
}

/** The bridge as an OS process whose JSON log lines can be awaited (each wait bounded). */
class BridgeProcess {
  readonly lines: LogLine[] = [];
  private output = '';
  private readonly waiters: { test: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  readonly child: ChildProcess;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [BRIDGE], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout?.on('data', (d: Buffer) => {
      this.output += d.toString();
      partial += d.toString();
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const text of parts) this.add(JSON.parse(text) as LogLine);
    });
    this.child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
  }

  private add(line: LogLine): void {
    this.lines.push(line);
    for (const w of [...this.waiters])
      if (w.test(line)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(line);
      }
  }

  count(msg: string): number {
    return this.lines.filter((l) => l.msg === msg).length;
  }

  /** The `n`-th log line (1-based) with this message. */
  nth(msg: string, n: number, timeoutMs = 60_000): Promise<LogLine> {
    let seen = this.lines.filter((l) => l.msg === msg).length;
    const done = seen >= n ? this.lines.filter((l) => l.msg === msg)[n - 1] : undefined;
    if (done) return Promise.resolve(done);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${n}th "${msg}" within ${timeoutMs} ms:\n${this.output}`)),
        timeoutMs,
      );
      this.waiters.push({
        test: (l) => l.msg === msg && ++seen >= n,
        resolve: (l) => (clearTimeout(timer), resolve(l)),
      });
    });
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

// The MCP bridge with a published MCP server from npm (server-everything over stdio) next to the whole system
// (OS processes, real NATS, the model faked at the HTTP boundary): its tools on the bus, a goal that calls one, and the
// server killed and brought back.
describe('MCP bridge with @modelcontextprotocol/server-everything over stdio', () => {
  let system: System;
  let bridge: BridgeProcess | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'novelrag-mcp-bridge-'));
  const config = path.join(dir, 'mcp.json');

  const toolNames = async () =>
    ((await system.http('/v1/tools')).body['tools'] as { name: string }[]).map((t) => t.name);

  beforeAll(async () => {
    writeFileSync(
      config,
      JSON.stringify({
        servers: {
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], timeoutMs: 30_000 },
        },
      }),
    );
    system = await startSystem('mcpbridge', {
      beforeOrchestrator: async (natsUrl) => {
        bridge = new BridgeProcess({
          NATS_URL: natsUrl,
          NOVELRAG_MCP_CONFIG: config,
          NOVELRAG_MCP_RESTART_MAX_MS: '1000',
          NOVELRAG_INSTANCE_ID: 'mcpbridge-1',
        });
        await bridge.nth('tools served', 1);
      },
    });
    installRules(system.fake, [...RULES, ...demoScenario().rules]);
  }, 180_000);

  afterAll(async () => {
    await bridge?.stop();
    await system?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the server's tools in GET /v1/tools, prefixed, with their schema and hints", async () => {
    const res = await system.http('/v1/tools');
    const tools = res.body['tools'] as {
      name: string;
      metadata: { inputSchema: { required?: string[] }; readOnly: boolean; idempotent: boolean };
    }[];
    const echo = tools.find((t) => t.name === 'everything_echo');
    expect(echo?.metadata).toMatchObject({
      readOnly: true,
      idempotent: true,
      inputSchema: { required: ['message'] },
    });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['everything_get-sum']));
  });

  it('lets a goal driven by the scripted model call an MCP tool and use its result', async () => {
    const goalId = await postGoal(system, { goal: '[MCP] Echo a greeting through the MCP server' });
    const events = await system.events(goalId, { timeoutMs: 120_000 });
    const outcome = events.find((e) => e.event.kind === 'operation.outcome')?.event as
      { tool: string; status: string; result?: string } | undefined;
    expect(outcome).toMatchObject({ tool: 'everything_echo', status: 'success' });
    expect(outcome?.result).toContain('Echo: hello through the bridge');
    expect(events[events.length - 1]?.event.kind).toBe('goal.completed');
  }, 180_000);

  it('withdraws the tools while the server is dead and serves them again once it is restarted', async () => {
    const first = await bridge!.nth('MCP server connected', 1);
    expect(first.pid).toEqual(expect.any(Number));
    const served = bridge!.count('tools served');
    process.kill(first.pid!, 'SIGKILL');
    await bridge!.nth('MCP server down; its tools are withdrawn until it is back', 1);
    expect(await toolNames()).not.toContain('everything_echo');
    const second = await bridge!.nth('MCP server connected', 2);
    expect(second.pid).not.toBe(first.pid);
    await bridge!.nth('tools served', served + 1);
    expect(await toolNames()).toContain('everything_echo');
  }, 120_000);
});
