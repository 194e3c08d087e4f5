import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { KvKeys } from '@novelrag/contracts';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { describeResultStoreContract } from './contract/result-store-contract';
import { KvToolResultStore } from './result-store';

let nats: NatsServerHandle;
beforeAll(async () => {
  nats = await startNats();
});
afterAll(() => nats?.stop());

describeResultStoreContract('JetStream KV (real NATS)', {
  create: async () => {
    const nc = await connect({ servers: nats.url });
    const bucket = uniqueName('tool_results');
    const store = await KvToolResultStore.open(nc, { bucket });
    const kv = await new Kvm(nc).open(bucket);
    // A short TTL so the expiry case is quick; the bucket's max age runs on the server's clock.
    const shortBucket = uniqueName('tool_results_ttl');
    const ttlMs = 1_000;
    const shortLived = { store: await KvToolResultStore.open(nc, { bucket: shortBucket, ttlMs }), ttlMs };
    return {
      store,
      shortLived,
      putRaw: async (invocationId, raw) => void (await kv.put(KvKeys.toolResult(invocationId), raw)),
      elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      cleanup: async () => {
        await kv.destroy().catch(() => undefined);
        await (await new Kvm(nc).open(shortBucket)).destroy().catch(() => undefined);
        await nc.close();
      },
    };
  },
});
