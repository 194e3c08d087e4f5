import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { KvKeys } from '@novelrag/contracts';
import {
  CONTRACT_LEASE_OPTIONS,
  describeThreadLeasesContract,
} from '../stores/contract/thread-leases-contract';
import { describeThreadStoreContract } from '../stores/contract/thread-store-contract';
import { KvThreadLeases } from './thread-leases';
import { KvThreadStore } from './thread-store';

// The test kit depends on this lib, so these suites use the machine's NATS directly (NATS_URL or the default).
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
let buckets = 0;

/** A fresh bucket name, and a cleanup that destroys it and closes the given connections. */
function freshBucket(kind: string) {
  const bucket = `${kind}_test_${suffix}_${++buckets}`;
  const destroy = async (nc: NatsConnection, others: NatsConnection[] = []) => {
    await new Kvm(nc)
      .open(bucket)
      .then((kv) => kv.destroy())
      .catch(() => undefined);
    for (const c of [nc, ...others]) await c.close().catch(() => undefined);
  };
  return { bucket, destroy };
}

describeThreadStoreContract('JetStream KV (real NATS)', {
  create: async () => {
    const nc = await connect({ servers: NATS_URL });
    const { bucket, destroy } = freshBucket('threads');
    const store = await KvThreadStore.open(nc, bucket);
    const kv = await new Kvm(nc).open(bucket);
    return {
      store,
      putRaw: async (threadId, raw) => void (await kv.put(KvKeys.thread(threadId), raw)),
      cleanup: () => destroy(nc),
    };
  },
});

describeThreadLeasesContract('JetStream KV (real NATS)', {
  create: async () => {
    const nc = await connect({ servers: NATS_URL });
    const { bucket, destroy } = freshBucket('leases');
    const others: NatsConnection[] = [];
    return {
      leases: await KvThreadLeases.open(nc, CONTRACT_LEASE_OPTIONS, bucket),
      open: (options) => KvThreadLeases.open(nc, options, bucket),
      openCrashable: async (options) => {
        const own = await connect({ servers: NATS_URL });
        others.push(own);
        return { leases: await KvThreadLeases.open(own, options, bucket), crash: () => own.close() };
      },
      cleanup: () => destroy(nc, others),
    };
  },
});
