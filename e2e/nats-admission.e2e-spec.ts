import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kvm } from '@nats-io/kv';
import { Svcm } from '@nats-io/services';
import { connect, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { discoverTools } from '@novelrag/bus';
import {
  MicroServiceNames,
  Subjects,
  TOOL_QUEUE_GROUP,
  encodeToolMetadata,
  parseToolOwners,
} from '@novelrag/contracts';
import { admittedConfig, admitTool, type Admission } from '../tools/admit/admit-tool';
import { NATS_CONFIG, passwordEnv, startAuthNats, type AuthNats } from '@novelrag/testkit';
import { refusedRequest } from './attacks';

/** Resolves with the error that closed a subscription at once, or 'open' once the server has had a round trip. */
async function fate(nc: NatsConnection, subject: string, queue?: string): Promise<string> {
  const sub = nc.subscribe(subject, queue ? { queue } : {});
  const closed = sub.closed.then((e) => String(e));
  await nc.flush().catch(() => undefined);
  // The server's -ERR for a refused subscription precedes the PONG of the flush above.
  return Promise.race([closed, nc.flush().then(() => 'open')]);
}

// An operator admits a tool with `npm run admit-tool` and applies the printed stanza to deploy/nats/nats.conf: the new
// nkey identity serves exactly its own tool, and nothing that belongs to a built-in tool or to another tool.
describe('an admitted third-party tool identity (nkey) on the real config', () => {
  let dir: string;
  let nats: AuthNats;
  let admission: Admission;
  const open: NatsConnection[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'novelrag-admit-e2e-'));
    admission = admitTool('weather', ['Forecast'], 'examples=DiceRoll,WordCount');
    const config = path.join(dir, 'nats.conf');
    await writeFile(config, admittedConfig(await readFile(NATS_CONFIG, 'utf8'), admission));
    const check = spawnSync('nats-server', ['-t', '-c', config], {
      env: { PATH: process.env['PATH'] ?? '', ...passwordEnv() },
      encoding: 'utf8',
    });
    expect(check.status).toBe(0);
    nats = await startAuthNats(config);
  }, 60_000);

  afterAll(async () => {
    for (const nc of open) await nc.close().catch(() => undefined);
    await nats?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const asTool = async () => {
    const nc = await connect({
      servers: nats.url,
      name: 'test-weather',
      timeout: 60_000, // the nkey handshake signs in JS: beside a CPU hog it ran past nats.js's 20 s default
      inboxPrefix: admission.inboxPrefix,
      authenticator: nkeyAuthenticator(new TextEncoder().encode(admission.seed)),
    });
    open.push(nc);
    return nc;
  };

  it('serves its tool and discovery, keeps its results in its own bucket, and is discovered as the owner', async () => {
    const tool = await asTool();
    const service = await new Svcm(tool as never).add({
      name: admission.serviceName,
      version: '1.0.0',
      queue: TOOL_QUEUE_GROUP,
    });
    service.addEndpoint('Forecast', {
      subject: Subjects.toolInvoke('Forecast'),
      metadata: encodeToolMetadata({
        description: 'Tomorrow',
        inputSchema: { type: 'object' },
        readOnly: true,
        destructive: false,
        idempotent: true,
        schemaVersion: 1,
      }),
      handler: (_err, msg) => msg.respond(JSON.stringify({ type: 'result', result: 'rain' })),
    });
    const orchestrator = await nats.connectAs('orchestrator');
    open.push(orchestrator);
    const reply = await orchestrator.request(Subjects.toolInvoke('Forecast'), '{}', { timeout: 5_000 });
    expect(reply.json()).toEqual({ type: 'result', result: 'rain' });
    const found = await discoverTools(orchestrator, 750, { owners: parseToolOwners(admission.owners) });
    expect(found.tools.map((t) => [t.name, t.service?.name])).toEqual([
      ['Forecast', 'novelrag-tools-weather'],
    ]);
    expect(found.refused).toEqual([]);
    const kv = await new Kvm(tool).create(admission.resultsBucket, { history: 1, ttl: 60_000 });
    await kv.create('inv-1', '{}');
    // The orchestrator reads (never writes) that bucket while a call is pending.
    const read = await new Kvm(orchestrator).open(admission.resultsBucket);
    expect((await read.get('inv-1'))?.string()).toBe('{}');
    await service.stop();
  });

  it("cannot serve a built-in or another tool's subject, answer as another service, or write another's results", async () => {
    const tool = await asTool();
    for (const name of ['ResourceWriteTool', 'DiceRoll']) {
      expect(await fate(tool, Subjects.toolInvoke(name), TOOL_QUEUE_GROUP)).toContain(
        'Permissions Violation',
      );
    }
    expect(await fate(tool, Subjects.toolInvoke('Forecast'))).toContain('Permissions Violation'); // queue group only
    for (const service of [MicroServiceNames.tools, MicroServiceNames.toolService('examples')]) {
      expect(await fate(tool, `$SRV.INFO.${service}.>`)).toContain('Permissions Violation');
    }
    expect(await fate(tool, '_INBOX.>')).toContain('Permissions Violation');
    await refusedRequest(tool, '$KV.tool-results.g-1-s1', '{}');
    await refusedRequest(tool, '$KV.tool-results-examples.g-1-s1', '{}');
    await refusedRequest(tool, '$JS.API.STREAM.DELETE.KV_tool-results-weather');
    expect(await fate(tool, Subjects.goalCancel('g-1'))).toBe('open');
  });
});
