import { jetstreamManager } from '@nats-io/jetstream';
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

  it('hands out free ports and unique, NATS-safe names', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const a = uniqueName('my.stream *>');
    expect(a).toMatch(/^my_stream____[a-z0-9]+_[0-9a-f]{8}$/);
    expect(uniqueName('x')).not.toBe(uniqueName('x'));
  });
});
