import { CasThreadLeases } from '../stores/cas-thread-leases';
import type { ThreadLeaseOptions } from '../stores/thread-leases';
import { memoryCells } from './memory-cells';
import { RevisionedMap } from './revisioned-map';

/**
 * The ThreadLeases in memory: the KV protocol over a RevisionedMap. Instances given the same `records` share their
 * leases, like orchestrator instances sharing one bucket.
 */
export class InMemoryThreadLeases extends CasThreadLeases {
  constructor(
    options: ThreadLeaseOptions,
    readonly records = new RevisionedMap(),
  ) {
    super(memoryCells(records), (threadId) => threadId, options);
  }
}
