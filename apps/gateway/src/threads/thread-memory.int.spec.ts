import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startService, type RunningService } from '@novelrag/bus';
import { NatsMemory } from '@novelrag/resource-client';
import {
  startNats,
  startServiceProcess,
  type NatsServerHandle,
  type ServiceProcess,
} from '@novelrag/testkit';
import { gatewayDefinition } from '../service.definition';

const KEY = 'test-key-0123456789abcdef';

describe('DELETE /v1/threads/:id/memory (real NATS, gateway in process, resource-service process)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let gateway: RunningService<object>;
  let resources: ServiceProcess;
  let dataDir: string;
  let url: string;

  const forget = (id: string, auth = true) =>
    fetch(`${url}/v1/threads/${id}/memory`, {
      method: 'DELETE',
      headers: auth ? { authorization: `Bearer ${KEY}` } : {},
    });

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-gw-memory-'));
    // The resource-service as built (`npm run build`), as an OS process on a private data folder.
    resources = await startServiceProcess('resource-service', 'gw-memory-rs', {
      NATS_URL: nats.url,
      NOVELRAG_DATA_DIR: dataDir,
    });
    gateway = await startService(gatewayDefinition, {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_API_KEYS: KEY,
      NOVELRAG_LOG_LEVEL: 'silent',
    });
    url = gateway.url!;
  });

  afterAll(async () => {
    await gateway?.close();
    await resources?.stop();
    await nc?.close();
    await nats?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('forgets the thread and answers 200 {removed}; other threads keep their memory', async () => {
    const memory = new NatsMemory(nc, { timeoutMs: 20_000 });
    const base = { goalId: 'g-1', question: 'Who is 余归?', answer: 'A swordswoman.' };
    await memory.storeInteraction({ ...base, threadId: 'th-gone', summary: 's', facts: ['I like her'] });
    await memory.storeInteraction({ ...base, threadId: 'th-kept' });

    const res = await forget('th-gone');
    expect({ status: res.status, body: (await res.json()) as unknown }).toEqual({
      status: 200,
      body: { removed: 3 },
    });
    expect(await memory.sessionSummary('th-gone')).toBeNull();
    expect(await memory.retrieveRelevant('余归', 'th-gone')).toEqual([]);
    expect(await memory.retrieveRelevant('余归', 'th-kept')).toHaveLength(1);

    const again = await forget('th-gone');
    expect(await again.json()).toEqual({ removed: 0 });
  });

  it('answers 400 for a malformed thread id and 401 without a key', async () => {
    const bad = await forget('a!b');
    expect({ status: bad.status, code: ((await bad.json()) as { code: string }).code }).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    expect((await forget('th-x', false)).status).toBe(401);
  });
});
