import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { STORE_CONTRACT_DIMENSIONS } from './contract/fixtures';
import { describeStoreContract } from './contract/store-contract';
import { QdrantResourceStore } from './qdrant-store';

// Where the Qdrant contract runs (stack-facts §4): QDRANT_URL first, else a qdrant/qdrant container when a
// container runtime answers, else a visible skip. Jest registers tests synchronously, so the runtime probe runs
// in a bounded child process (testcontainers' own detection) before the suite is declared.
const IMAGE = process.env['QDRANT_IMAGE'] ?? 'qdrant/qdrant:v1.19.0';

function containerRuntimeProblem(): string | null {
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      "require('testcontainers').getContainerRuntimeClient().then(() => process.exit(0), (e) => { console.error(e.message); process.exit(1); })",
    ],
    { cwd: process.cwd(), timeout: 20_000, encoding: 'utf8' },
  );
  if (probe.status === 0) return null;
  if (probe.error) return probe.error.message;
  return (probe.stderr || `exit ${probe.status}`).trim().split('\n').pop() ?? 'no container runtime';
}

const configuredUrl = process.env['QDRANT_URL'];
const runtimeProblem = configuredUrl ? null : containerRuntimeProblem();
const skip =
  runtimeProblem === null
    ? undefined
    : `QDRANT_URL is not set and no container runtime is reachable (${runtimeProblem})`;

let container: Promise<StartedTestContainer> | undefined;

async function qdrantUrl(): Promise<string> {
  if (configuredUrl) return configuredUrl;
  container ??= new GenericContainer(IMAGE)
    .withExposedPorts(6333)
    .withWaitStrategy(Wait.forHttp('/readyz', 6333))
    .start();
  const started = await container;
  return `http://${started.getHost()}:${started.getMappedPort(6333)}`;
}

afterAll(async () => {
  if (container) await (await container).stop();
}, 60_000);

describeStoreContract('Qdrant', {
  ...(skip !== undefined ? { skip } : {}),
  async create() {
    const url = await qdrantUrl();
    const apiKey = process.env['QDRANT_API_KEY'];
    const client = new QdrantClient({ url, ...(apiKey ? { apiKey } : {}), checkCompatibility: false });
    // A collection per test keeps tests independent on a shared server.
    const collection = `novelrag_contract_${randomBytes(6).toString('hex')}`;
    const open = () =>
      QdrantResourceStore.open({ client, collection, dimensions: STORE_CONTRACT_DIMENSIONS });
    let current = await open();
    return {
      store: current,
      async reopen() {
        current = await open();
        return current;
      },
      async cleanup() {
        await current.close();
        await client.deleteCollection(collection);
        await client.deleteCollection(`${collection}_meta`);
      },
    };
  },
});
