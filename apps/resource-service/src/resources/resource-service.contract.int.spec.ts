import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { startService } from '@novelrag/bus';
import { NatsResourceService } from '@novelrag/resource-client';
import { describeResourceServiceContract } from '@novelrag/resource-client/testing';
import { startNats } from '@novelrag/testkit';
import { resourceServiceDefinition } from '../service.definition';

// The same contract the in-memory repository passes, against this service over a real NATS server (embedded store).
describeResourceServiceContract('resource-service over NATS', {
  async create() {
    const nats = await startNats({ privateServer: true });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-res-contract-'));
    const running = await startService(resourceServiceDefinition, {
      NATS_URL: nats.url,
      NOVELRAG_DATA_DIR: dataDir,
      NOVELRAG_LOG_LEVEL: 'silent',
      NOVELRAG_INSTANCE_ID: 'res-contract-test',
    });
    const nc = await connect({ servers: nats.url });
    return {
      service: new NatsResourceService(nc, { timeoutMs: 20_000 }),
      async close() {
        await nc.close();
        await running.close();
        await nats.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  },
});
