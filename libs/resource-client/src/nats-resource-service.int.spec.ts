import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Subjects, errorEnvelope } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { NatsResourceService } from './nats-resource-service';

// The transport side of the NATS client, against a real NATS server with stand-in responders.
describe('NatsResourceService (real NATS, no resource-service)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('fails with NO_RESPONDERS (retryable) when nothing serves the subject', async () => {
    const service = new NatsResourceService(nc, { timeoutMs: 20_000 });
    await expect(service.find({ uri: '/' })).rejects.toMatchObject({
      code: 'NO_RESPONDERS',
      retryable: true,
    });
  });

  it("keeps the service's error code, and rejects a reply that violates its contract as INTERNAL", async () => {
    const service = new NatsResourceService(nc, { timeoutMs: 20_000 });
    const notFound = nc.subscribe(Subjects.resources.find, {
      callback: (_err, msg) => {
        msg.respond(JSON.stringify({ ok: false, error: errorEnvelope('NOT_FOUND', '/x does not exist') }));
      },
    });
    const broken = nc.subscribe(Subjects.resources.backlogList, {
      callback: (_err, msg) => {
        msg.respond(JSON.stringify({ ok: true, data: { entries: 'not a list' } }));
      },
    });
    try {
      await expect(service.find({ uri: '/x' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        retryable: false,
      });
      await expect(service.backlogList()).rejects.toMatchObject({ code: 'INTERNAL' });
    } finally {
      notFound.unsubscribe();
      broken.unsubscribe();
    }
  });

  it('bounds the wait: a responder that never answers gives TIMEOUT, an abort CANCELLED', async () => {
    const silent = nc.subscribe(Subjects.resources.search, { callback: () => undefined });
    try {
      const quick = new NatsResourceService(nc, { timeoutMs: 300 });
      await expect(quick.search({ query: 'x' })).rejects.toMatchObject({ code: 'TIMEOUT', retryable: true });
      const patient = new NatsResourceService(nc, { timeoutMs: 60_000 });
      const controller = new AbortController();
      const pending = patient.search({ query: 'x' }, controller.signal);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    } finally {
      silent.unsubscribe();
    }
  });
});
