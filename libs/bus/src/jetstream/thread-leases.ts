import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { Buckets, KvKeys } from '@novelrag/contracts';
import { CasThreadLeases } from '../stores/cas-thread-leases';
import type { ThreadLeaseOptions } from '../stores/thread-leases';
import { kvCells } from './kv-cells';

/**
 * The ThreadLeases over the KV bucket `thread-leases` (one JSON lease record per `KvKeys.thread`). The bucket's max
 * age (long compared to the lease) removes the records of threads nobody touches any more.
 */
export class KvThreadLeases extends CasThreadLeases {
  static async open(
    nc: NatsConnection,
    options: ThreadLeaseOptions,
    bucket: string = Buckets.threadLeases,
  ): Promise<KvThreadLeases> {
    const ttl = Math.max(60 * 60_000, options.leaseMs * 20);
    const kv = await new Kvm(nc).create(bucket, { history: 1, ttl });
    return new KvThreadLeases(kvCells(kv), KvKeys.thread, options);
  }
}
