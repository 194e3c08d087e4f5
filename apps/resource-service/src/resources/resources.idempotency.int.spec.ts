import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { busRequest, startService, type RunningService } from '@novelrag/bus';
import {
  ApplyReply,
  ApplyRequest,
  FindReply,
  OperationsListReply,
  Subjects,
  UndoRedoReply,
} from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { z } from 'zod';
import { resourceServiceDefinition } from '../service.definition';

const S = Subjects.resources;

// A retried apply after a resource-service restart (a tool-runner died after its write; another runner re-runs the
// invocation with the same key): the embedded LanceDB store on the same data folder answers it from the persisted
// history instead of applying it twice.
describe('resource-service apply idempotency across a restart (real NATS, embedded store)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let svc: RunningService<object> | undefined;
  let dataDir: string;
  let starts = 0;
  const call = <T = unknown>(
    subject: string,
    body: unknown,
    schema: z.ZodType<T> = z.any() as z.ZodType<T>,
  ) => busRequest(nc, subject, body, schema, { timeoutMs: 10_000 });

  async function restart(): Promise<void> {
    await svc?.close();
    starts += 1;
    svc = await startService(resourceServiceDefinition, {
      NATS_URL: nats.url,
      NOVELRAG_DATA_DIR: dataDir,
      NOVELRAG_LOG_LEVEL: 'silent',
      NOVELRAG_INSTANCE_ID: `res-idempotency-${starts}`,
    });
  }

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-res-idem-'));
    await restart();
  });

  afterAll(async () => {
    await svc?.close();
    await nc?.close();
    await nats?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const rootIds = async (): Promise<string[]> => {
    const found = await call(S.find, { uri: '/character' }, FindReply);
    return found.kind === 'aspect' ? found.rootIds : [];
  };
  // Removing "the first element" twice would remove a second, different element.
  const keyedApply = {
    operations: [
      { type: 'splice', location: { uri: '/character', childrenKey: null }, start: 0, end: 1, data: [] },
      { type: 'property', uri: '/character/lin', data: { title: '剑客' } },
    ],
    groupId: 'inv-7',
    idempotencyKey: 'inv-7-main',
  };

  it('answers the retry from the persisted history: applied once, same reply, same history', async () => {
    await call(S.aspectsCreate, { name: 'character', childrenKeys: [], metadata: {} });
    await call(S.apply, {
      operations: [
        {
          type: 'splice',
          location: { uri: '/character', childrenKey: null },
          start: 0,
          end: 0,
          data: [
            { id: 'yu_gui', properties: { name: '余归' } },
            { id: 'lin', properties: { name: 'Lin' } },
            { id: 'mo', properties: { name: 'Mo' } },
          ],
        },
      ],
    });
    const first = await call(S.apply, keyedApply, ApplyReply);
    expect(first.changedUris).toEqual(expect.arrayContaining(['/character/yu_gui', '/character/lin']));
    const history = await call(S.operations, { limit: 20 }, OperationsListReply);
    expect(history.entries.filter((entry) => entry.group === 'inv-7')).toHaveLength(2);

    expect(first.replayed).toBeUndefined();
    await restart();
    // A retry that regenerated its content sends other operations: it gets the first reply and what was applied.
    const retried = { ...keyedApply, operations: [keyedApply.operations[1]!] };
    expect(await call(S.apply, retried, ApplyReply)).toEqual({
      ...first,
      replayed: true,
      applied: ApplyRequest.parse(keyedApply).operations,
    });
    expect(await rootIds()).toEqual(['lin', 'mo']);
    expect(await call(S.find, { uri: '/character/lin' }, FindReply)).toMatchObject({
      element: { properties: { name: 'Lin', title: '剑客' } },
    });
    expect(await call(S.operations, { limit: 20 }, OperationsListReply)).toEqual(history);
  });

  it('keeps an undone write undone when the same key is retried, across another restart', async () => {
    expect(await call(S.undo, {}, UndoRedoReply)).toMatchObject({ status: 'applied', count: 2 });
    expect(await rootIds()).toEqual(['yu_gui', 'lin', 'mo']);
    const first = await call(S.apply, keyedApply, ApplyReply);
    await restart();
    expect(await call(S.apply, keyedApply, ApplyReply)).toMatchObject({ ...first, replayed: true });
    expect(await rootIds()).toEqual(['yu_gui', 'lin', 'mo']);
    // A new key is a new intent: it applies.
    await call(S.apply, { ...keyedApply, idempotencyKey: 'inv-8-main', groupId: 'inv-8' }, ApplyReply);
    expect(await rootIds()).toEqual(['lin', 'mo']);
  });
});
