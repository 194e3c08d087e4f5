import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { discoverTools } from '@novelrag/bus';
import { SCHEMA_VERSION, Subjects, ToolInvocation, ToolOutput } from '@novelrag/contracts';
import { type AuthNats, REPO_ROOT, settle, startAuthNats } from '@novelrag/testkit';
import { silentLogger } from '@novelrag/tool-kit';
import { BRIDGE_INBOX_PREFIX, McpServerConfig } from './config';
import { ServerSupervisor } from './server-supervisor';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

// The bridge under its own NATS user of deploy/nats/nats.conf (a real nats-server from that file), hosting
// server-everything over stdio: the orchestrator's user discovers and calls its tools, the result is recorded once,
// and the bridge's user can read nothing else.
describe('MCP bridge under its NATS user (deploy/nats/nats.conf)', () => {
  let nats: AuthNats;
  let bridgeNc: NatsConnection;
  let orchestrator: NatsConnection;
  let supervisor: ServerSupervisor;

  beforeAll(async () => {
    nats = await startAuthNats();
    bridgeNc = await nats.connectAs('mcp-bridge', { inboxPrefix: BRIDGE_INBOX_PREFIX });
    orchestrator = await nats.connectAs('orchestrator');
    supervisor = new ServerSupervisor({
      name: 'everything',
      config: McpServerConfig.parse({ command: process.execPath, args: [EVERYTHING, 'stdio'] }),
      connection: bridgeNc,
      instanceId: 'bridge-perm-1',
      logger: silentLogger,
      maxRestartMs: 1_000,
    });
    await supervisor.start();
  }, 60_000);

  afterAll(async () => {
    await supervisor?.stop();
    await bridgeNc?.close();
    await orchestrator?.close();
    await nats?.stop();
  });

  it('serves the MCP tools, discovered and called by the orchestrator, (a read-only tool runs again: it keeps no record)', async () => {
    expect(supervisor.state).toBe('serving');
    const found = await settle(
      () => discoverTools(orchestrator),
      (d) => d.tools.some((t) => t.name === 'everything_get-sum'),
    );
    expect(found.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['everything_get-sum']));
    const invocation = ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: 'g-perm-s0',
      goalId: 'g-perm',
      step: 0,
      tool: 'everything_get-sum',
      params: { a: 2, b: 3 },
      deadline: Date.now() + 30_000,
      runtimeSubject: Subjects.goalRuntime('g-perm'),
      interactSubject: Subjects.goalInteract('g-perm'),
    });
    const call = async () =>
      ToolOutput.parse(
        (
          await orchestrator.request(Subjects.toolInvoke(invocation.tool), JSON.stringify(invocation), {
            timeout: 30_000,
          })
        ).json(),
      );
    const first = await call();
    expect(first).toMatchObject({ type: 'result', result: 'The sum of 2 and 3 is 5.' });
    // get-sum is read-only (its MCP annotations): it needs no at-most-once record and simply runs again.
    expect(await call()).toMatchObject({
      type: 'result',
      result: first.type === 'result' ? first.result : '',
    });
  });

  it("cannot read goals, the trace, the repository or others' replies", async () => {
    // The server's permission error closes the subscription; an allowed one would stay open (then `open` after 5 s).
    const denied = async (subject: string) => {
      const sub = bridgeNc.subscribe(subject);
      let timer: NodeJS.Timeout | undefined;
      const open = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('open'), 5_000)));
      const fate = await Promise.race([sub.closed.then((e) => String(e)), open]);
      clearTimeout(timer);
      return fate;
    };
    for (const subject of [
      'novelrag.goals.>',
      'novelrag.trace.>',
      '_INBOX.>',
      'novelrag.resources.>',
      Subjects.toolInvoke('x'),
    ])
      expect(await denied(subject)).toMatch(/Permissions Violation/i);
    await expect(
      bridgeNc.request(Subjects.resources.find, '{"uri":"/"}', { timeout: 2_000 }),
    ).rejects.toThrow();
  });
});
