import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { connectTestNats, freePort, startNats, type NatsServerHandle } from './nats-harness';
import { uniqueName } from './names';

describe('NatsHarness', () => {
  const handles: NatsServerHandle[] = [];
  afterAll(async () => {
    for (const h of handles) await h.stop();
  });

  it('finds a NATS server with JetStream and connects to it', async () => {
    const nats = await startNats();
    handles.push(nats);
    expect(nats.url).toMatch(/^nats:\/\//);
    const nc = await connectTestNats(nats.url);
    try {
      const subject = `novelrag.test.${uniqueName('harness')}`;
      const sub = nc.subscribe(subject, { max: 1 });
      nc.publish(subject, 'ping');
      for await (const m of sub) expect(m.string()).toBe('ping');
      const jsm = await jetstreamManager(nc);
      const info = await jsm.getAccountInfo();
      expect(info.limits).toBeDefined();
    } finally {
      await nc.close();
    }
  });

  it('starts and stops a private nats-server with JetStream when asked to', async () => {
    const nats = await startNats({ privateServer: true });
    handles.push(nats);
    expect(nats.source).toBe('process');
    const nc = await connectTestNats(nats.url);
    const jsm = await jetstreamManager(nc);
    const stream = uniqueName('STREAM');
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
    expect((await jsm.streams.info(stream)).config.name).toBe(stream);
    await nc.close();
    await nats.stop();
    await expect(connectTestNats(nats.url)).rejects.toThrow();
  });

  it('restarts a private server on the same port with its JetStream store, and clients reconnect', async () => {
    const nats = await startNats({ privateServer: true });
    handles.push(nats);
    const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = uniqueName('KEPT');
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
      await jetstream(nc).publish(`${stream}.a`, 'before');
      const reconnected = (async () => {
        for await (const status of nc.status()) if (status.type === 'reconnect') return;
      })();
      await nats.restart!({ downMs: 200 });
      await reconnected;
      // The same connection, reconnected: the stream and its message survived the kill. (A request sent in the
      // first moments after the reconnect can go unanswered, so the read is retried, bounded.)
      let kept: string | undefined;
      for (let attempt = 0; attempt < 10 && kept === undefined; attempt++) {
        try {
          const again = await jetstreamManager(nc, { timeout: 1_000 });
          kept = (await again.streams.getMessage(stream, { seq: 1 }))?.string();
        } catch {
          // not answered yet: ask again
        }
      }
      expect(kept).toBe('before');
    } finally {
      await nc.close();
    }
  });

  it('hands out free ports and unique, NATS-safe names', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const a = uniqueName('my.stream *>');
    expect(a).toMatch(/^my_stream____[a-z0-9]+_[0-9a-f]{8}$/);
    expect(uniqueName('x')).not.toBe(uniqueName('x'));
  });
});
