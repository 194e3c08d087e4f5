import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { busRequest, startService } from '@novelrag/bus';
import { MemoryRetrieveReply, Subjects } from '@novelrag/contracts';
import { NatsMemory } from '@novelrag/resource-client';
import { describeMemoryPortContract } from '@novelrag/resource-client/testing';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { resourceServiceDefinition } from '../service.definition';

const start = (natsUrl: string, dataDir: string) =>
  startService(resourceServiceDefinition, {
    NATS_URL: natsUrl,
    NOVELRAG_DATA_DIR: dataDir,
    NOVELRAG_LOG_LEVEL: 'silent',
    NOVELRAG_INSTANCE_ID: 'memory-test',
  });

// The MemoryPort contract InMemoryMemory passes, against this service over a real NATS server (embedded store).
describeMemoryPortContract('NatsMemory over the resource-service', {
  async create() {
    const nats = await startNats({ privateServer: true });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-mem-contract-'));
    const running = await start(nats.url, dataDir);
    const nc = await connect({ servers: nats.url });
    return {
      memory: new NatsMemory(nc, { timeoutMs: 20_000 }),
      async close() {
        await nc.close();
        await running.close();
        await nats.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  },
});

describe('thread memory over NATS: restarts and bad input', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let dataDir: string;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-mem-restart-'));
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('survives a restart of the resource-service on the same data folder', async () => {
    const memory = new NatsMemory(nc, { timeoutMs: 20_000 });
    const first = await start(nats.url, dataDir);
    try {
      await memory.storeInteraction({
        threadId: 'restart',
        goalId: 'g-1',
        question: '余归的剑叫什么？',
        answer: '灰烬剑。',
        summary: 'About 余归’s sword.',
        facts: ['The user calls the sword Ashbrand'],
      });
    } finally {
      await first.close();
    }
    const second = await start(nats.url, dataDir);
    try {
      expect(await memory.sessionSummary('restart')).toBe('About 余归’s sword.');
      const found = await memory.retrieveRelevant('余归的剑', 'restart');
      expect(found[0]).toMatchObject({
        kind: 'episodic',
        goalId: 'g-1',
        text: 'Q: 余归的剑叫什么？\nA: 灰烬剑。',
      });
      expect(found[0]?.id).toMatch(/^mem-[0-9a-f]{24}$/);
      expect(await memory.forget('restart')).toBe(3);
    } finally {
      await second.close();
    }
  });

  it('answers a request outside the contract with VALIDATION_FAILED', async () => {
    const running = await start(nats.url, dataDir);
    try {
      const memory = new NatsMemory(nc, { timeoutMs: 20_000 });
      await expect(memory.retrieveRelevant('x', 'bad.thread')).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await expect(
        memory.storeInteraction({
          threadId: 't',
          goalId: 'g',
          question: 'q',
          answer: 'a',
          facts: ['x'.repeat(5_000)],
        }),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      const unversioned = busRequest(
        nc,
        Subjects.memory.retrieve,
        { threadId: 't', query: 'q' },
        MemoryRetrieveReply,
        {
          timeoutMs: 20_000,
        },
      );
      await expect(unversioned).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    } finally {
      await running.close();
    }
  });
});
