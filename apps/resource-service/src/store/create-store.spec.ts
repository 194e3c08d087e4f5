import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from './create-store';
import { LanceDbResourceStore } from './lancedb-store';

describe('createStore', () => {
  it('opens the embedded LanceDB store in <dataDir>/store when QDRANT_URL is not set', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'novelrag-create-'));
    try {
      const store = await createStore({ NOVELRAG_DATA_DIR: dataDir }, 16);
      expect(store).toBeInstanceOf(LanceDbResourceStore);
      const info = JSON.parse(
        await readFile(join(dataDir, 'store', 'meta', 'store.json'), 'utf8'),
      ) as unknown;
      expect(info).toEqual({ schemaVersion: 1, dimensions: 16 });
      // The folder is this process's until the store is closed.
      await expect(createStore({ NOVELRAG_DATA_DIR: dataDir }, 16)).rejects.toThrow(/is in use by process/);
      await store.close();
      await (await createStore({ NOVELRAG_DATA_DIR: dataDir }, 16)).close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
