/// <reference types="jest" />
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startService, type RunningService, type ServiceDefinition } from '@novelrag/bus';
import { Subjects } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from './nats-harness';

export interface BootedService {
  readonly url: string | undefined;
  readonly nats: NatsServerHandle;
  readonly nc: NatsConnection;
}

/**
 * The boot contract every service must meet, as a Jest block: it starts in-process against real NATS, answers its
 * per-instance health request with `nats: ok`, and refuses an invalid environment naming the variable. `extra` adds
 * service-specific checks against the running instance.
 */
export function describeServiceBoot<E extends object>(
  definition: ServiceDefinition<E>,
  extra?: (booted: () => BootedService) => void,
): void {
  describe(`${definition.service} boots against real NATS`, () => {
    let nats: NatsServerHandle;
    let nc: NatsConnection;
    let running: RunningService<E> | undefined;
    const instanceId = `${definition.service}-boot-${process.pid}`;

    beforeAll(async () => {
      nats = await startNats();
      nc = await connect({ servers: nats.url });
      running = await startService(definition, {
        NATS_URL: nats.url,
        NOVELRAG_INSTANCE_ID: instanceId,
        NOVELRAG_LOG_LEVEL: 'silent',
        NOVELRAG_DATA_DIR: `tmp/boot-${instanceId}`,
        PORT: '0',
        NOVELRAG_AUTH_DISABLED: 'true',
      });
    });

    afterAll(async () => {
      await running?.close();
      await nc?.close();
      await nats?.stop();
    });

    it('answers its health request on the bus', async () => {
      const reply = await nc.request(Subjects.instanceHealth(definition.service, instanceId), '{}', {
        timeout: 5000,
      });
      expect(reply.json()).toMatchObject({
        ok: true,
        data: { ok: true, service: definition.service, instanceId, checks: { nats: { ok: true } } },
      });
    });

    it('refuses to start with an invalid environment, naming the variable', async () => {
      await expect(startService(definition, { NATS_URL: 'not a url' })).rejects.toThrow(/NATS_URL/);
    });

    extra?.(() => ({ url: running?.url, nats, nc }));
  });
}
