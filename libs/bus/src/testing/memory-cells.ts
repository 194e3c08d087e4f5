import type { CasCells } from '../stores/cas-cells';
import { RevisionedMap } from './revisioned-map';

/** CasCells over a RevisionedMap (values kept as the JSON text they were written as). */
export function memoryCells(map = new RevisionedMap()): CasCells {
  return {
    read: async (key) => {
      const entry = map.get(key);
      return entry
        ? { value: JSON.parse(entry.value), revision: entry.revision }
        : { value: undefined, revision: undefined };
    },
    write: async (key, data, revision) =>
      revision === undefined ? map.create(key, data) : map.update(key, data, revision),
  };
}
