import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type NatsServerHandle, startNats, uniqueName } from '@novelrag/testkit';
import { StoreOwnership, storeIdentity } from './store-owner';

describe('StoreOwnership (one resource-service per store, over real NATS)', () => {
  let nats: NatsServerHandle;
  const connections: NatsConnection[] = [];
  const conn = async () => {
    const nc = await connect({ servers: nats.url });
    connections.push(nc);
    return nc;
  };
  const storeOf = (name: string) => ({ key: uniqueName(name), label: `test store ${name}` });

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
  });
  afterAll(async () => {
    for (const nc of connections) await nc.close();
    await nats?.stop();
  });

  it('refuses a second owner of a store, naming the first; another store is free; a released store is free again', async () => {
    const store = storeOf('a');
    const first = await StoreOwnership.claim(await conn(), store, 'rs-1');
    await expect(StoreOwnership.claim(await conn(), store, 'rs-2')).rejects.toThrow(
      /The store test store a is in use by resource-service instance rs-1 \(since .*\); run one resource-service per store/,
    );
    const other = await StoreOwnership.claim(await conn(), storeOf('b'), 'rs-2');
    first.release();
    const second = await StoreOwnership.claim(await conn(), store, 'rs-2');
    second.release();
    other.release();
  });

  it('lets exactly one of two instances starting at once own the store', async () => {
    const store = storeOf('race');
    const results = await Promise.allSettled([
      StoreOwnership.claim(await conn(), store, 'rs-x'),
      StoreOwnership.claim(await conn(), store, 'rs-y'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    for (const r of results) if (r.status === 'fulfilled') r.value.release();
  });

  it('frees the store when the connection of its owner ends (a killed service)', async () => {
    const store = storeOf('killed');
    const nc = await conn();
    await StoreOwnership.claim(nc, store, 'rs-dead');
    await nc.close();
    (await StoreOwnership.claim(await conn(), store, 'rs-next')).release();
  });

  it('names a store by its Qdrant URL and collection, or by the embedded folder on this host', () => {
    const qdrant = storeIdentity({ QDRANT_URL: 'http://q:6333/', NOVELRAG_DATA_DIR: 'data' });
    expect(qdrant.label).toBe('qdrant http://q:6333 collection novelrag_elements');
    expect(qdrant.key).toMatch(/^[0-9a-f]{16}$/);
    expect(storeIdentity({ QDRANT_URL: 'http://q:6333', NOVELRAG_DATA_DIR: 'other' }).key).toBe(qdrant.key);
    const a = storeIdentity({ NOVELRAG_DATA_DIR: '/srv/a' });
    expect(a.label).toMatch(/^lancedb .+:\/srv\/a\/store$/);
    expect(storeIdentity({ NOVELRAG_DATA_DIR: '/srv/b' }).key).not.toBe(a.key);
  });
});
