import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Svcm } from '@nats-io/services';
import { Subjects } from '@novelrag/contracts';
import { z } from 'zod';
import { startService, type RunningService } from './bootstrap';
import { BusError } from './errors';
import { busRequest } from './request';

/** Resolves with the BusError a request rejects with (fails the test if it resolves). */
async function failure(p: Promise<unknown>): Promise<BusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BusError) return e;
    throw e;
  }
  throw new Error('expected the request to fail');
}

const suffix = Math.random().toString(36).slice(2, 8);
const ECHO = `novelrag.test.${suffix}.echo`;
const FAIL = `novelrag.test.${suffix}.fail`;
const CRASH = `novelrag.test.${suffix}.crash`;
const SLOW = `novelrag.test.${suffix}.slow`;
const MULTILINE = `novelrag.test.${suffix}.multiline`;

const EchoRequest = z.object({ text: z.string().min(1) }).strict();
let release: (() => void) | undefined;

@Controller()
class TestController {
  @MessagePattern(ECHO, { metadata: { description: 'echoes' } })
  echo(@Payload() body: unknown) {
    const { text } = EchoRequest.parse(body);
    return { text: text.toUpperCase() };
  }

  @MessagePattern(FAIL)
  fail(): never {
    throw BusError.of('NOT_FOUND', 'no such thing', { uri: '/character/x' });
  }

  @MessagePattern(MULTILINE)
  multiline(): never {
    throw BusError.of('CONFLICT', 'first line\r\nsecond line');
  }

  @MessagePattern(CRASH)
  crash(): never {
    throw new Error('secret internal detail');
  }

  @MessagePattern(SLOW)
  async slow(): Promise<{ done: true }> {
    await new Promise<void>((r) => {
      release = r;
    });
    return { done: true };
  }
}

describe('NatsMicroServer + startService (real NATS)', () => {
  let svc: RunningService<object>;
  let nc: NatsConnection;

  beforeAll(async () => {
    // The test kit depends on this lib, so this suite uses the machine's NATS directly (NATS_URL or the default).
    const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
    svc = await startService(
      {
        service: 'resource-service',
        microName: `novelrag-test-${suffix}`,
        description: 'test service',
        envSchema: z.object({}),
        module: (ctx) => {
          @Module({ imports: [ctx.bus], controllers: [TestController] })
          class TestModule {}
          return TestModule;
        },
      },
      {
        NATS_URL,
        NOVELRAG_LOG_LEVEL: 'silent',
        NOVELRAG_INSTANCE_ID: `test-${suffix}`,
        NOVELRAG_SHUTDOWN_GRACE_MS: '5000',
      },
    );
    nc = await connect({ servers: NATS_URL });
  });

  afterAll(async () => {
    await nc?.close();
  });

  it('answers a valid request with {ok, data}', async () => {
    const reply = await busRequest(nc, ECHO, { text: 'yugui 余归' }, z.object({ text: z.string() }), {
      timeoutMs: 2000,
    });
    expect(reply).toEqual({ text: 'YUGUI 余归' });
  });

  it('turns an invalid payload into VALIDATION_FAILED naming the field', async () => {
    const err = await failure(busRequest(nc, ECHO, { text: 42 }, z.unknown(), { timeoutMs: 2000 }));
    expect(err).toBeInstanceOf(BusError);
    expect((err as BusError).code).toBe('VALIDATION_FAILED');
    expect((err as BusError).message).toContain('text');
  });

  it('rejects non-JSON payloads with a coded error and keeps serving', async () => {
    const msg = await nc.request(ECHO, 'not json{', { timeout: 2000 });
    expect(msg.headers?.get('Nats-Service-Error-Code')).toBe('400');
    expect(msg.json()).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    await expect(busRequest(nc, ECHO, { text: 'a' }, z.unknown(), { timeoutMs: 2000 })).resolves.toEqual({
      text: 'A',
    });
  });

  it('keeps coded errors coded and hides internal details', async () => {
    const notFound = await failure(busRequest(nc, FAIL, {}, z.unknown(), { timeoutMs: 2000 }));
    expect(notFound.envelope).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no such thing',
      details: { uri: '/character/x' },
    });
    const crash = await failure(busRequest(nc, CRASH, {}, z.unknown(), { timeoutMs: 2000 }));
    expect(crash.code).toBe('INTERNAL');
    expect(crash.message).not.toContain('secret');
  });

  it('answers an error whose message has line breaks (headers cannot carry them)', async () => {
    const conflict = await failure(busRequest(nc, MULTILINE, {}, z.unknown(), { timeoutMs: 2000 }));
    expect(conflict.envelope).toMatchObject({ code: 'CONFLICT', message: 'first line\r\nsecond line' });
  });

  it('reports NO_RESPONDERS and TIMEOUT distinctly', async () => {
    const none = await failure(
      busRequest(nc, `novelrag.test.${suffix}.nobody`, {}, z.unknown(), { timeoutMs: 2000 }),
    );
    expect(none.code).toBe('NO_RESPONDERS');
    const slow = await failure(busRequest(nc, SLOW, {}, z.unknown(), { timeoutMs: 200 }));
    expect(slow.code).toBe('TIMEOUT');
    release?.();
  });

  it('is discoverable through $SRV.INFO with endpoint metadata', async () => {
    const client = new Svcm(nc as never).client({ strategy: 'timer', maxWait: 1000 });
    const infos = [];
    for await (const info of await client.info(`novelrag-test-${suffix}`)) infos.push(info);
    expect(infos).toHaveLength(1);
    const echo = infos[0]!.endpoints.find((e) => e.subject === ECHO);
    expect(echo?.metadata).toEqual({ description: 'echoes' });
  });

  it('answers its health request, then stops gracefully finishing in-flight work', async () => {
    const health = await nc.request(Subjects.instanceHealth('resource-service', `test-${suffix}`), '{}', {
      timeout: 2000,
    });
    expect(health.json()).toMatchObject({ ok: true, data: { ok: true, instanceId: `test-${suffix}` } });

    const inFlight = busRequest(nc, SLOW, {}, z.object({ done: z.literal(true) }), { timeoutMs: 5000 });
    await new Promise<void>((resolve) => {
      const poll = () => (release ? resolve() : setImmediate(poll));
      release = undefined;
      setImmediate(poll);
    });
    const closing = svc.close();
    release?.();
    await expect(inFlight).resolves.toEqual({ done: true });
    await closing;
    const after = await failure(busRequest(nc, ECHO, { text: 'a' }, z.unknown(), { timeoutMs: 1000 }));
    expect(after.code).toBe('NO_RESPONDERS');
  });
});
