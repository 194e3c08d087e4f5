import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { Buckets, KvKeys } from '@novelrag/contracts';
import { CasThreadStore } from '../stores/thread-store';
import { kvCells } from './kv-cells';

/** The ThreadStore over the KV bucket `threads`: one JSON ThreadRecord (without its revision) per `KvKeys.thread`. */
export class KvThreadStore extends CasThreadStore {
  static async open(nc: NatsConnection, bucket: string = Buckets.threads): Promise<KvThreadStore> {
    return new KvThreadStore(kvCells(await new Kvm(nc).create(bucket, { history: 3 })), KvKeys.thread);
  }
}
