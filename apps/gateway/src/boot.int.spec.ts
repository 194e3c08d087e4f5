import 'reflect-metadata';
import { describeServiceBoot } from '@novelrag/testkit';
import { gatewayDefinition } from './service.definition';

describeServiceBoot(gatewayDefinition, (booted) => {
  it('serves /health/live and /health/ready over HTTP', async () => {
    const { url } = booted();
    expect(url).toBeDefined();
    const live = await fetch(`${url}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ok: true,
      service: 'gateway',
      checks: { nats: { ok: true } },
    });
  });
});
