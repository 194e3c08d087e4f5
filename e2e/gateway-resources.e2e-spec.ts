import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Svcm } from '@nats-io/services';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { KvGoalStore, busRequest } from '@novelrag/bus';
import {
  ImportReply,
  MicroServiceNames,
  Subjects,
  TOOL_QUEUE_GROUP,
  encodeToolMetadata,
} from '@novelrag/contracts';
import {
  freePort,
  startNats,
  type NatsServerHandle,
  buildServices,
  startServiceProcess,
  type ServiceProcess,
} from '@novelrag/testkit';

// Whole processes (resource-service and gateway from their dist, as `npm start` runs them) on a private NATS,
// driven only through REST and the bus.
describe('gateway REST over a running resource-service (OS processes, real NATS)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let dataDir: string;
  let url: string;
  const services: ServiceProcess[] = [];
  const KEY = 'e2e-key-0123456789abcdef';

  const http = async (route: string, init: RequestInit = {}) => {
    const res = await fetch(`${url}${route}`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${KEY}`,
        ...(init.headers ?? {}),
      },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    buildServices();
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-e2e-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    services.push(
      await startServiceProcess('resource-service', 'rs-e2e', {
        NATS_URL: nats.url,
        NOVELRAG_DATA_DIR: dataDir,
      }),
    );
    services.push(
      await startServiceProcess('gateway', 'gw-e2e', {
        NATS_URL: nats.url,
        PORT: String(port),
        NOVELRAG_API_KEYS: KEY,
      }),
    );
    const imported = await busRequest(
      nc,
      Subjects.resources.import,
      {
        schemaVersion: 1,
        mode: 'merge',
        aspects: [
          {
            aspect: { name: 'character', childrenKeys: [], metadata: {} },
            elements: [
              { id: 'yugui', properties: { name: '余归', role: 'protagonist' } },
              { id: 'lin_feng', properties: { name: 'Lin Feng', role: 'rival' } },
            ],
          },
        ],
      },
      ImportReply,
      { timeoutMs: 10_000 },
    );
    expect(imported).toEqual({ aspects: 1, elements: 2 });
  }, 120_000);

  afterAll(async () => {
    for (const s of services.reverse()) await s.stop();
    await nc?.close();
    await nats?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('reads, searches and lists the repository', async () => {
    expect(await http('/v1/resources?uri=/character/yugui')).toMatchObject({
      status: 200,
      body: { kind: 'element', element: { properties: { name: '余归' } } },
    });
    const search = await http('/v1/resources/search', {
      method: 'POST',
      body: JSON.stringify({ query: '余归' }),
    });
    expect(search.status).toBe(200);
    expect((search.body.hits as { uri: string }[])[0]?.uri).toBe('/character/yugui');
    expect((await http('/v1/aspects')).body).toMatchObject({ aspects: [{ name: 'character' }] });
    expect((await http('/v1/resources?uri=/character/nobody')).status).toBe(404);
    expect((await http('/v1/resources?uri=character')).status).toBe(400);
  });

  it('undoes and redoes through REST', async () => {
    expect(await http('/v1/undo', { method: 'POST' })).toMatchObject({
      status: 200,
      body: { status: 'applied', action: 'undo' },
    });
    expect((await http('/v1/resources?uri=/character/yugui')).status).toBe(404);
    expect(await http('/v1/redo', { method: 'POST' })).toMatchObject({
      status: 200,
      body: { status: 'applied', action: 'redo' },
    });
    expect((await http('/v1/operations?limit=5')).status).toBe(200);
  });

  it('manages the backlog', async () => {
    const added = await http('/v1/backlog', {
      method: 'POST',
      body: JSON.stringify({ content: { task: '写余归的背景' }, priority: 7 }),
    });
    expect(added.status).toBe(201);
    const id = (added.body.entry as { id: string }).id;
    expect((await http('/v1/backlog')).body).toMatchObject({ entries: [{ id, priority: 7 }] });
    expect((await http(`/v1/backlog/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await http(`/v1/backlog/${id}`, { method: 'DELETE' })).status).toBe(404);
    // A malformed id is the gateway's own coded 400, never passed on to the resource-service.
    let forwarded = 0;
    const tap = nc.subscribe(Subjects.resources.backlogRemove, {
      callback: () => {
        forwarded += 1;
      },
    });
    await nc.flush();
    for (const bad of ['has%20space', 'x'.repeat(129), '%E4%BD%99']) {
      const refused = await http(`/v1/backlog/${bad}`, { method: 'DELETE' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    await nc.flush(); // anything the gateway had sent would have reached the tap before this round trip ends
    tap.unsubscribe();
    expect(forwarded).toBe(0);
  });

  it('lists tools registered on the bus by any process', async () => {
    const service = await new Svcm(nc as never).add({
      name: MicroServiceNames.toolService('e2e'),
      version: '1.0.0',
      queue: TOOL_QUEUE_GROUP,
    });
    service.addEndpoint('word_count', {
      subject: Subjects.toolInvoke('word_count'),
      metadata: encodeToolMetadata({
        description: 'Counts words',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        readOnly: true,
        destructive: false,
        idempotent: true,
        schemaVersion: 1,
      }),
      handler: (_err, msg) => msg.respond(JSON.stringify({ type: 'result', result: '0' })),
    });
    try {
      const tools = await http('/v1/tools');
      expect(tools.status).toBe(200);
      expect(tools.body.tools).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'word_count', instances: 1, available: true }),
        ]),
      );
    } finally {
      await service.stop();
    }
  });

  it('routes an interaction answer to the orchestrator only when it is pending', async () => {
    const accepted = await http('/v1/goals', {
      method: 'POST',
      body: JSON.stringify({ request: '创建主角余归' }),
    });
    const goalId = accepted.body.goalId as string;
    expect(
      (
        await http(`/v1/goals/${goalId}/interactions/i1`, {
          method: 'POST',
          body: JSON.stringify({ approved: true }),
        })
      ).body,
    ).toMatchObject({
      code: 'INTERACTION_NOT_PENDING',
    });
    // Play the orchestrator: mark the goal as waiting and answer on the interaction subject.
    const store = await KvGoalStore.open(nc);
    await store.mutate(goalId, (g) => ({
      ...g,
      status: 'running',
      pendingInteraction: {
        kind: 'confirm',
        interactionId: 'i1',
        tool: 'resource_write',
        step: 0,
        message: '创建余归？',
        createdAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
    }));
    const answers: unknown[] = [];
    const sub = nc.subscribe(Subjects.interactionAnswer(goalId, 'i1'), {
      callback: (_err, msg) => {
        answers.push(msg.json());
        msg.respond(JSON.stringify({ ok: true, data: { accepted: true } }));
      },
    });
    const res = await http(`/v1/goals/${goalId}/interactions/i1`, {
      method: 'POST',
      body: JSON.stringify({ approved: true }),
    });
    sub.unsubscribe();
    expect(res).toEqual({ status: 200, body: { accepted: true } });
    expect(answers).toEqual([expect.objectContaining({ goalId, interactionId: 'i1', approved: true })]);
    expect(
      (
        await http(`/v1/goals/${goalId}/interactions/i1`, {
          method: 'POST',
          body: JSON.stringify({ approved: true, text: 'x' }),
        })
      ).status,
    ).toBe(400);
  });
});
