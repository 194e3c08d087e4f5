import type { KV } from '@nats-io/kv';
import type { CasCells } from '../stores/cas-cells';
import { isWrongSequence } from './kv-errors';

/** CasCells over a JetStream KV bucket: a create for an absent key, an update at the revision otherwise. */
export function kvCells(kv: KV): CasCells {
  return {
    read: async (key) => {
      const entry = await kv.get(key);
      if (!entry || entry.operation !== 'PUT' || entry.length === 0)
        return { value: undefined, revision: entry?.revision };
      return { value: entry.json<unknown>(), revision: entry.revision };
    },
    write: async (key, data, revision) => {
      try {
        return revision === undefined ? await kv.create(key, data) : await kv.update(key, data, revision);
      } catch (err) {
        if (isWrongSequence(err)) return null;
        throw err;
      }
    },
  };
}
