import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kvm } from '@nats-io/kv';
import { Svcm } from '@nats-io/services';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { refusedRequest } from './attacks';
import { discoverTools } from '@novelrag/bus';
import {
  BUILTIN_TOOLS,
  Buckets,
  MicroServiceNames,
  Subjects,
  TOOL_QUEUE_GROUP,
  encodeToolMetadata,
  type ServiceName,
} from '@novelrag/contracts';
import {
  FakeOpenAIServer,
  forgedToolInfo,
  freePort,
  NATS_CONFIG,
  passwordEnv,
  startAuthNats,
  type AuthNats,
  type NatsUser,
  REPO_ROOT,
  buildServices,
  startServiceProcess,
  type ServiceProcess,
  demoScenario,
  installRules,
} from '@novelrag/testkit';

/** Resolves with the error that closed a subscription, or 'open' when it survived `ms`. */
async function subscriptionFate(sub: Subscription, ms = 1_500): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const open = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('open'), ms)));
  const fate = await Promise.race([sub.closed.then((e) => String(e)), open]);
  clearTimeout(timer);
  return fate;
}

// The NATS permissions of deploy/nats/nats.conf (the docker-compose server), tested on a real nats-server started
// from that very file: a third-party tool user can serve tools and discovery but read nothing of goals, the trace or
// others' replies; every service boots and works under its own user.
describe('NATS users and subject permissions (deploy/nats/nats.conf on a real nats-server)', () => {
  let nats: AuthNats;
  const open: NatsConnection[] = [];
  const services: ServiceProcess[] = [];
  let dataDir: string;
  let gatewayUrl: string;
  let fake: FakeOpenAIServer | undefined;
  const as = async (user: NatsUser, options = {}) => {
    const nc = await nats.connectAs(user, options);
    open.push(nc);
    return nc;
  };

  beforeAll(async () => {
    buildServices();
    nats = await startAuthNats();
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-perm-e2e-'));
  }, 120_000);

  afterAll(async () => {
    for (const s of services.reverse()) await s.stop();
    for (const nc of open) await nc.close().catch(() => undefined);
    await fake?.close();
    await nats?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('the config is valid for nats-server -t and refuses to start without the passwords', () => {
    const ok = spawnSync('nats-server', ['-t', '-c', NATS_CONFIG], {
      env: { ...process.env, ...passwordEnv() },
      encoding: 'utf8',
    });
    expect(ok.status).toBe(0);
    const missing = spawnSync('nats-server', ['-t', '-c', NATS_CONFIG], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('NATS_GATEWAY_PASSWORD');
  });

  it('rejects unknown users and wrong passwords', async () => {
    await expect(nats.connectAs('tool-examples', { pass: 'wrong' })).rejects.toThrow(/Authorization/i);
  });

  it('a third-party tool serves its endpoint and discovery; services call and discover it', async () => {
    const tool = await as('tool-examples', { inboxPrefix: '_INBOX_examples' });
    const service = await new Svcm(tool as never).add({
      name: MicroServiceNames.toolService('examples'),
      version: '1.0.0',
      queue: TOOL_QUEUE_GROUP,
    });
    service.addEndpoint('DiceRoll', {
      subject: Subjects.toolInvoke('DiceRoll'),
      metadata: encodeToolMetadata({
        description: 'Echoes',
        inputSchema: { type: 'object', properties: {} },
        readOnly: true,
        destructive: false,
        idempotent: true,
        schemaVersion: 1,
      }),
      handler: (_err, msg) => msg.respond(JSON.stringify({ type: 'result', result: 'echo' })),
    });
    const orchestrator = await as('orchestrator');
    const reply = await orchestrator.request(Subjects.toolInvoke('DiceRoll'), '{}', { timeout: 2_000 });
    expect(reply.json()).toEqual({ type: 'result', result: 'echo' });
    const discovered = await discoverTools(await as('gateway'));
    expect(discovered.tools.map((t) => t.name)).toContain('DiceRoll');
    // The tool hears cancellations, sends runtime events and keeps at-most-once results in its KV bucket.
    expect(await subscriptionFate(tool.subscribe(Subjects.goalCancel('g-1')))).toBe('open');
    const runtime = orchestrator.subscribe(Subjects.goalRuntime('g-1'), { max: 1 });
    await orchestrator.flush();
    tool.publish(Subjects.goalRuntime('g-1'), '{"kind":"info"}');
    for await (const m of runtime) expect(m.string()).toBe('{"kind":"info"}');
    const kv = await new Kvm(tool).create(`${Buckets.toolResults}-examples`, { history: 1, ttl: 60_000 });
    await kv.create('inv-1', '{}');
    expect((await kv.get('inv-1'))?.string()).toBe('{}');
  });

  it('a third-party tool cannot read goals, the trace, all invocations or others replies, nor use JetStream', async () => {
    const tool = await as('tool-examples', { inboxPrefix: '_INBOX_examples' });
    for (const subject of ['novelrag.goals.>', 'novelrag.trace.>', '_INBOX.>', 'novelrag.resources.>', '>']) {
      expect(await subscriptionFate(tool.subscribe(subject))).toContain(
        `Permissions Violation for Subscription to "${subject}"`,
      );
    }
    // Tool subjects only inside the queue group: a plain subscription (seeing every call) is refused.
    expect(await subscriptionFate(tool.subscribe(Subjects.toolInvoke('DiceRoll')))).toContain(
      'Permissions Violation for Subscription',
    );
    await expect(tool.request('$JS.API.STREAM.INFO.GOALS', '', { timeout: 2_000 })).rejects.toThrow(
      /Permissions Violation for Publish to "\$JS.API.STREAM.INFO.GOALS"/,
    );
    await expect(new Kvm(tool).open(Buckets.goals).then((kv) => kv.get('g-1'))).rejects.toThrow(
      /Permissions Violation/,
    );
    await expect(tool.request(Subjects.resources.find, '{"uri":"/"}', { timeout: 2_000 })).rejects.toThrow(
      /Permissions Violation for Publish/,
    );
  });

  it('each service boots under its own user, and the 余归 goal runs to completion with no violation', async () => {
    fake = await FakeOpenAIServer.start();
    installRules(fake, demoScenario().rules);
    const model = { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'e2e', NOVELRAG_MODEL: 'fake-model' };
    const boot = (app: ServiceName, extra: Record<string, string> = {}) =>
      startServiceProcess(app, `${app}-perm`, { ...nats.envFor(app), ...extra }).then((s) => {
        services.push(s);
        return s;
      });
    await boot('resource-service', { NOVELRAG_DATA_DIR: dataDir });
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    await boot('gateway', { PORT: String(port), NOVELRAG_AUTH_DISABLED: 'true' });
    await boot('tool-runner', model);
    await boot('orchestrator', model);
    const http = async (route: string, init: RequestInit = {}) => {
      const res = await fetch(`${gatewayUrl}${route}`, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // gateway → resource-service request/reply, resource-service's answer
    expect((await http('/v1/aspects')).status).toBe(200);
    // gateway → JetStream (goals KV + GOALS stream): a durable 202
    const goal = await http('/v1/goals', {
      method: 'POST',
      body: JSON.stringify({
        request: 'Create a protagonist named 余归 and link her to the Azure Sect',
        lang: 'en',
      }),
    });
    expect(goal.status).toBe(202);
    // gateway → $SRV discovery of the built-in tools served by the tool-runner under its user
    const tools = await http('/v1/tools');
    expect(tools.status).toBe(200);
    expect(tools.body['invalid']).toEqual([]);
    expect(await http('/health/ready')).toMatchObject({ status: 200 });
    // The whole pursuit under the users' permissions: GOALS consumer, KV records and leases, the trace, tool
    // invocations with their KV claims, runtime events, the confirmation (tool → orchestrator → gateway), the writes.
    const id = String(goal.body['goalId']);
    const deadline = Date.now() + 60_000;
    let record: Record<string, unknown> = {};
    for (;;) {
      record = (await http(`/v1/goals/${id}`)).body;
      const pending = record['pendingInteraction'] as { interactionId: string } | undefined;
      if (pending) {
        const answer = await http(`/v1/goals/${id}/interactions/${pending.interactionId}`, {
          method: 'POST',
          body: JSON.stringify({ approved: true }),
        });
        expect(answer.status).toBe(200);
      }
      if (['completed', 'failed', 'abandoned', 'cancelled'].includes(String(record['status']))) break;
      if (Date.now() > deadline) throw new Error(`goal still ${String(record['status'])}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(record).toMatchObject({ status: 'completed' });
    expect((await http('/v1/resources?uri=/character/yugui')).status).toBe(200);
    // The containers' health check (deploy/healthcheck.mjs) answers with the service's own user.
    for (const app of ['resource-service', 'tool-runner', 'orchestrator'] as const) {
      const check = spawnSync(process.execPath, [path.join(REPO_ROOT, 'deploy/healthcheck.mjs')], {
        env: {
          PATH: process.env.PATH ?? '',
          APP: app,
          NOVELRAG_INSTANCE_ID: `${app}-perm`,
          ...nats.envFor(app),
        },
        encoding: 'utf8',
        timeout: 15_000,
      });
      expect({ app, status: check.status, stderr: check.stderr }).toEqual({ app, status: 0, stderr: '' });
    }
    const unhealthy = spawnSync(process.execPath, [path.join(REPO_ROOT, 'deploy/healthcheck.mjs')], {
      env: {
        PATH: process.env.PATH ?? '',
        APP: 'tool-runner',
        NOVELRAG_INSTANCE_ID: 'nobody',
        ...nats.envFor('tool-runner'),
      },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(unhealthy.status).toBe(1);
    // No service ran into its permissions (the server logs every violation with the connection's name; the test's
    // own connections, which attack on purpose, are named test-<user>).
    const violations = nats.output().match(/^.*Violation - User.*$/gm) ?? [];
    expect(violations.filter((line) => !line.includes(':test-'))).toEqual([]);
  }, 120_000);

  it('a third-party identity cannot serve, impersonate or plant results for a built-in tool, nor read goals or the trace', async () => {
    const tool = await as('tool-examples', { inboxPrefix: '_INBOX_examples' });
    for (const name of BUILTIN_TOOLS) {
      const sub = tool.subscribe(Subjects.toolInvoke(name), { queue: TOOL_QUEUE_GROUP });
      expect(await subscriptionFate(sub)).toContain('Permissions Violation for Subscription');
    }
    // Answer discovery as the built-in service: its own subjects are refused, and a forged answer to the open
    // $SRV.INFO is not confirmed by any instance, so discovery refuses it and keeps the genuine metadata.
    for (const subject of [
      '$SRV.INFO.novelrag-tools',
      '$SRV.INFO.novelrag-tools.>',
      '$SRV.*.novelrag-tools.>',
    ]) {
      expect(await subscriptionFate(tool.subscribe(subject))).toContain(
        'Permissions Violation for Subscription',
      );
    }
    const forger = tool.subscribe('$SRV.INFO', {
      callback: (_e, m) =>
        void m.respond(JSON.stringify(forgedToolInfo(['ResourceWriteTool', 'ResourcePurgeTool']))),
    });
    await tool.flush();
    // A gather ends once answers stop arriving: on a loaded machine the forger (this process) may answer after the
    // genuine runners' answers have ended it. Every round must keep the genuine metadata and leave the forged tool
    // out; rounds repeat (a bounded number) until one has received the forged answer and refused it.
    const orchestrator = await as('orchestrator');
    const forgedRefusal = [
      'ResourcePurgeTool',
      'instance FORGED did not confirm its discovery answer on its own subject',
    ];
    let refusals: string[][] = [];
    for (let round = 0; round < 8 && !refusals.some((r) => r[0] === forgedRefusal[0]); round++) {
      const found = await discoverTools(orchestrator, { owners: { examples: ['DiceRoll'] } });
      expect(found.tools.find((t) => t.name === 'ResourceWriteTool')?.metadata.destructive).toBe(true);
      expect(found.tools.map((t) => t.name)).not.toContain('ResourcePurgeTool');
      refusals = found.refused.map((r) => [r.tool, r.reason]);
    }
    forger.unsubscribe();
    expect(refusals).toEqual(expect.arrayContaining([forgedRefusal]));
    // Plant a result for a built-in invocation (ids are predictable), or touch the built-in runners' bucket.
    const planted = JSON.stringify({ invocationId: 'g-1-s1', output: { type: 'result', result: 'forged' } });
    await refusedRequest(tool, '$KV.tool-results.g-1-s1', planted);
    await refusedRequest(tool, '$JS.API.STREAM.INFO.KV_tool-results');
    await refusedRequest(tool, '$JS.API.STREAM.PURGE.KV_tool-results');
    // Read the trace or goals through JetStream.
    await refusedRequest(tool, '$JS.API.CONSUMER.CREATE.TRACE', '{}');
    await refusedRequest(tool, '$JS.API.STREAM.MSG.GET.TRACE', '{"last_by_subj":"novelrag.trace.>"}');
    await refusedRequest(tool, '$JS.API.DIRECT.GET.KV_goals.$KV.goals.g-1');
    expect(await subscriptionFate(tool.subscribe('$KV.goals.>'))).toContain('Permissions Violation');
  });

  it('the gateway identity cannot purge TRACE, delete a bucket or change a stream, and the system keeps working', async () => {
    const gateway = await as('gateway');
    await refusedRequest(gateway, '$JS.API.STREAM.PURGE.TRACE', '{}');
    await refusedRequest(gateway, '$JS.API.STREAM.DELETE.KV_goals');
    await refusedRequest(gateway, '$JS.API.STREAM.DELETE.GOALS');
    await refusedRequest(
      gateway,
      '$JS.API.STREAM.UPDATE.TRACE',
      JSON.stringify({ name: 'TRACE', max_msgs: 1 }),
    );
    await refusedRequest(gateway, '$JS.API.CONSUMER.DELETE.GOALS.orchestrator');
    await refusedRequest(gateway, '$KV.tool-results.g-1-s1', '{}');
    // Nor may the orchestrator write a tool's result: it only reads them.
    await refusedRequest(await as('orchestrator'), '$KV.tool-results.g-1-s1', '{}');
    // Everything is still there and served.
    const trace = await (
      await as('orchestrator')
    ).request('$JS.API.STREAM.INFO.TRACE', '', { timeout: 5_000 });
    expect((trace.json() as { state: { messages: number } }).state.messages).toBeGreaterThan(0);
    const list = await fetch(`${gatewayUrl}/v1/goals?limit=5`);
    const goals = ((await list.json()) as { goals: { status: string }[] }).goals;
    expect(goals.map((g) => g.status)).toContain('completed');
    const tools = (await (await fetch(`${gatewayUrl}/v1/tools`)).json()) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining([...BUILTIN_TOOLS]));
    const accepted = await fetch(`${gatewayUrl}/v1/goals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request: 'One more goal after the attacks', lang: 'en' }),
    });
    expect(accepted.status).toBe(202);
  });
});
