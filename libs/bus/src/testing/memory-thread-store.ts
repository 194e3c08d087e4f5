import { CasThreadStore } from '../stores/thread-store';
import { memoryCells } from './memory-cells';
import { RevisionedMap } from './revisioned-map';

/** The ThreadStore in memory (same protocol as the KV store, over a RevisionedMap keyed by thread id). */
export class InMemoryThreadStore extends CasThreadStore {
  constructor(readonly records = new RevisionedMap()) {
    super(memoryCells(records), (threadId) => threadId);
  }
}
