import { randomBytes } from 'node:crypto';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { LocalEmbedder } from '@novelrag/repository';
import { QdrantResourceStore } from '../qdrant-store';
import { STORE_CONTRACT_DIMENSIONS } from './fixtures';

/**
 * A contract store on a Qdrant reached through `client` (a server or the emulator): a collection per test keeps tests
 * independent on a shared server; `reopen` opens a new store on the same collections; `cleanup` drops them.
 */
export async function qdrantContractStore(client: QdrantClient) {
  const collection = `novelrag_contract_${randomBytes(6).toString('hex')}`;
  const open = (dimensions = STORE_CONTRACT_DIMENSIONS) =>
    QdrantResourceStore.open({
      client,
      collection,
      dimensions,
      embed: (texts) => new LocalEmbedder(dimensions).embed(texts),
    });
  let current = await open();
  return {
    store: current,
    async reopen() {
      current = await open();
      return current;
    },
    async reopenWithDimensions(dimensions: number) {
      current = await open(dimensions);
      return current;
    },
    async cleanup() {
      await current.close();
      await client.deleteCollection(collection);
      await client.deleteCollection(`${collection}_meta`);
      await client.deleteCollection(`${collection}_memory`);
    },
  };
}
