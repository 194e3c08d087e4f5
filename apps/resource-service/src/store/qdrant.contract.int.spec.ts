import { spawnSync } from 'node:child_process';
import { QdrantClient } from '@qdrant/js-client-rest';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { qdrantContractStore } from './contract/qdrant-factory';
import { describeStoreContract } from './contract/store-contract';

// Where the Qdrant contract runs (docs/testing.md): QDRANT_URL first, else a qdrant/qdrant container when a
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
    return qdrantContractStore(
      new QdrantClient({ url, ...(apiKey ? { apiKey } : {}), checkCompatibility: false }),
    );
  },
});
