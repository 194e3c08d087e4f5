import { type Service, Svcm } from '@nats-io/services';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { JsonLogger } from '@novelrag/bus';
import { MicroServiceNames, Subjects, TOOL_QUEUE_GROUP, encodeToolMetadata } from '@novelrag/contracts';
import { type NatsServerHandle, startNats } from '@novelrag/testkit';
import { ToolHost, defineTool } from '@novelrag/tool-kit';
import { MISSES_BEFORE_UNAVAILABLE, NAME_LOOKUP_INTERVAL_MS, ToolRegistry } from './tool-registry';

describe('ToolRegistry (tool discovery over real NATS micro services)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  const log = new JsonLogger('orchestrator', 'test', 'silent').child('ToolRegistry');

  const serve = async (suffix: string, tools: string[]): Promise<Service> => {
    const service = await new Svcm(nc as never).add({
      name: MicroServiceNames.toolService(suffix),
      version: '1.0.0',
      queue: TOOL_QUEUE_GROUP,
    });
    for (const name of tools) {
      service.addEndpoint(name, {
        subject: Subjects.toolInvoke(name),
        metadata: encodeToolMetadata({
          description: `tool ${name}`,
          inputSchema: { type: 'object' },
          timeoutMs: 4_000,
          readOnly: true,
          destructive: false,
          idempotent: true,
          schemaVersion: 1,
        }),
        handler: (_err, msg) => msg.respond('{"type":"result","result":"ok"}'),
      });
    }
    return service;
  };

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('sees tools come and go; a gone tool stays listed as unavailable until it is back', async () => {
    const registry = new ToolRegistry(nc, { refreshMs: 60_000, missesBeforeUnavailable: 1, log });
    const live = registry.live();
    const a = await serve('a', ['alpha', 'beta']);
    await registry.start();
    expect(live.names).toEqual(['alpha', 'beta']);
    expect(live.callable().map((t) => t.name)).toEqual(['alpha', 'beta']);
    expect(live.get('alpha')).toMatchObject({ description: 'tool alpha', hints: { readOnly: true } });
    expect(registry.timeoutOf('alpha')).toBe(4_000);

    const b = await serve('b', ['gamma']);
    await a.stop();
    await registry.refresh();
    expect(live.names).toEqual(['alpha', 'beta', 'gamma']);
    expect(live.callable().map((t) => t.name)).toEqual(['gamma']); // the same catalogue object, now current
    expect(live.isAvailable('alpha')).toBe(false);

    registry.markUnavailable('gamma'); // a call found no responders
    expect(live.isAvailable('gamma')).toBe(false);
    await registry.refresh(); // …but discovery still sees it
    expect(live.isAvailable('gamma')).toBe(true);

    await b.stop();
    registry.stop();
  });

  it('ignores an endpoint whose service may not serve its name, and says so', async () => {
    const registry = new ToolRegistry(nc, {
      refreshMs: 3_600_000,
      owners: { own: ['owned'] },
      log,
    });
    const own = await serve('own', ['owned']);
    const squatter = await serve('squat', ['owned', 'ResourceWriteTool']);
    await registry.start();
    const catalog = registry.catalog();
    expect(catalog.names).toEqual(['owned']);
    expect(catalog.list()[0]?.tool.description).toBe('tool owned');
    expect(registry.refused()).toEqual([
      {
        service: 'novelrag-tools-squat',
        tool: 'owned',
        reason: 'novelrag-tools-squat is not admitted to serve owned',
      },
      {
        service: 'novelrag-tools-squat',
        tool: 'ResourceWriteTool',
        reason: 'ResourceWriteTool is a built-in tool: only novelrag-tools (the tool-runners) may serve it',
      },
    ]);
    registry.stop();
    await squatter.stop();
    await own.stop();
  });

  it('rediscovers at once when a tool host announces it started or stopped', async () => {
    // The periodic refresh is an hour away: only the announcements can make the catalogue change.
    const registry = new ToolRegistry(nc, { refreshMs: 3_600_000, log });
    const live = registry.live();
    await registry.start();
    expect(live.names).toEqual([]);

    const host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService('announcer'),
      version: '1.0.0',
      instanceId: 'announcer-1',
      tools: [
        defineTool({
          name: 'delta',
          description: 'a tool that arrives late',
          inputSchema: { type: 'object' },
          handler: () => 'ok',
        }),
      ],
      idempotency: false,
    });
    await host.start();
    await until(() => live.isAvailable('delta'));
    expect(live.names).toEqual(['delta']);

    await host.stop(1_000);
    await until(() => !live.isAvailable('delta'));
    expect(live.has('delta')).toBe(true); // still listed, as unavailable
    registry.stop();
  });

  it('tells whether any service that offered a tool still runs, by pinging it now', async () => {
    const registry = new ToolRegistry(nc, { refreshMs: 3_600_000, log });
    const one = await serve('zeta-1', ['zeta']);
    const two = await serve('zeta-2', ['zeta']);
    await registry.refresh();
    expect(await registry.served('zeta')).toBe(true);
    await one.stop();
    expect(await registry.served('zeta')).toBe(true); // the other service still serves it
    await two.stop();
    expect(await registry.served('zeta')).toBe(false); // no discovery since: the ping alone tells
    expect(await registry.served('never-seen')).toBeUndefined();
  });

  it('looks for a tool it does not offer when it is asked for by name, so a silent newcomer is usable at once', async () => {
    const registry = new ToolRegistry(nc, { refreshMs: 3_600_000, missesBeforeUnavailable: 1, log });
    const live = registry.live();
    const first = await serve('eta-1', ['eta']);
    await registry.refresh();
    await first.stop();
    await registry.refresh(); // the instance went down: listed, unavailable
    expect(live.isAvailable('eta')).toBe(false);

    // A new instance and a brand-new tool start without announcing themselves; no periodic refresh is due.
    const second = await serve('eta-2', ['eta', 'theta']);
    await registry.discoverFor(['eta', 'theta']);
    expect(live.isAvailable('eta')).toBe(true);
    expect(live.isAvailable('theta')).toBe(true);

    // A name nobody serves is looked for once per interval, not on every mention.
    let discoveries = 0;
    const counting = nc.subscribe('$SRV.INFO', {
      callback: () => {
        discoveries += 1;
      },
    });
    await nc.flush();
    await registry.discoverFor(['no-such-tool']);
    await registry.discoverFor(['no-such-tool', 'eta']);
    counting.unsubscribe();
    expect(discoveries).toBe(1);
    await second.stop();
  });

  it('keeps a silently missing tool available until it missed several discoveries in a row', async () => {
    const registry = new ToolRegistry(nc, { refreshMs: 3_600_000, log });
    const live = registry.live();
    const quiet = await serve('iota', ['iota']);
    await registry.refresh();
    expect(live.isAvailable('iota')).toBe(true);
    await quiet.stop(); // no goodbye: as if its answer to discovery had been lost, or the host was killed
    for (let miss = 1; miss < MISSES_BEFORE_UNAVAILABLE; miss++) {
      await registry.refresh();
      expect(live.isAvailable('iota')).toBe(true);
    }
    await registry.refresh();
    expect(live.isAvailable('iota')).toBe(false);
    const back = await serve('iota-2', ['iota']);
    await registry.refresh();
    expect(live.isAvailable('iota')).toBe(true);
    await back.stop();
  });

  it('takes a tool away after its service says goodbye, unless another service still offers it', async () => {
    const registry = new ToolRegistry(nc, { refreshMs: 3_600_000, log });
    const live = registry.live();
    const host = (instance: string) =>
      new ToolHost({
        connection: nc,
        serviceName: MicroServiceNames.toolService(`kappa-${instance}`),
        version: '1.0.0',
        instanceId: instance,
        tools: [
          defineTool({
            name: 'kappa',
            description: 'k',
            inputSchema: { type: 'object' },
            handler: () => 'ok',
          }),
        ],
        idempotency: false,
      });
    const [one, two] = [host('k1'), host('k2')];
    await one.start();
    await two.start();
    await registry.start();
    expect(live.isAvailable('kappa')).toBe(true);
    await one.stop(1_000);
    await registry.refresh(); // answers the goodbye: the other instance still serves it
    await registry.refresh();
    expect(live.isAvailable('kappa')).toBe(true);
    await two.stop(1_000);
    await until(() => !live.isAvailable('kappa'));
    registry.stop();
  });

  it('discovers before a goal when nothing is known yet', async () => {
    const registry = new ToolRegistry(nc, { refreshMs: 3_600_000, log });
    const service = await serve('late', ['epsilon']);
    await registry.ensureDiscovered(); // never started: this is the only discovery
    expect(registry.live().isAvailable('epsilon')).toBe(true);
    await service.stop();
  });

  it('while nothing is known, a goal waits for no discovery once one ended; one runs behind it at most every interval', async () => {
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const registry = new ToolRegistry(nc, { refreshMs: 3_600_000, log });
      const discoveries = jest.spyOn(registry, 'refresh');
      await registry.ensureDiscovered(); // none ended yet: the goal waits for this one (nothing on the bus)
      expect(discoveries).toHaveBeenCalledTimes(1);
      const service = await serve('quiet', ['zeta']); // a host that does not announce itself
      now += NAME_LOOKUP_INTERVAL_MS - 1;
      await registry.ensureDiscovered(); // the empty answer is recent: no discovery, and the goal does not wait
      expect(discoveries).toHaveBeenCalledTimes(1);
      expect(registry.live().isAvailable('zeta')).toBe(false);
      now += 1;
      await registry.ensureDiscovered(); // due: one starts behind the goal, which does not wait for it
      expect(discoveries).toHaveBeenCalledTimes(2);
      expect(registry.live().isAvailable('zeta')).toBe(false);
      await registry.refresh(); // joins the discovery in flight
      expect(registry.live().isAvailable('zeta')).toBe(true);
      await service.stop();
    } finally {
      clock.mockRestore();
    }
  });
});

/** Polls a condition (bounded); the announcement path is asynchronous. */
async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
