import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BusError, busRequest, startService, type RunningService } from '@novelrag/bus';
import {
  ApplyReply,
  BacklogAddReply,
  BacklogListReply,
  BacklogRemoveReply,
  ExportReply,
  FindReply,
  ImportReply,
  ImportRequest,
  OperationsListReply,
  SearchReply,
  SegmentsReply,
  Subjects,
  UndoRedoReply,
} from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { parse } from 'yaml';
import { z } from 'zod';
import { resourceServiceDefinition } from '../service.definition';
import { dumpsToProject, projectToDumps } from '@novelrag/resource-client';

const S = Subjects.resources;
const fixture = (name: string) => readFileSync(path.join(__dirname, '__fixtures__/project', name), 'utf8');

async function failure(p: Promise<unknown>): Promise<BusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BusError) return e;
    throw e;
  }
  throw new Error('expected the request to fail');
}

describe('resource-service NATS API (real NATS, embedded store)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let svc: RunningService<object>;
  let dataDir: string;
  const call = <T = unknown>(
    subject: string,
    body: unknown,
    schema: z.ZodType<T> = z.any() as z.ZodType<T>,
  ) => busRequest(nc, subject, body, schema, { timeoutMs: 10_000 });

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-res-'));
    svc = await startService(resourceServiceDefinition, {
      NATS_URL: nats.url,
      NOVELRAG_DATA_DIR: dataDir,
      NOVELRAG_LOG_LEVEL: 'silent',
      NOVELRAG_INSTANCE_ID: 'res-api-test',
    });
  });

  afterAll(async () => {
    await svc?.close();
    await nc?.close();
    await nats?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('imports a NovelRAG project, finds and searches it, and exports the same data', async () => {
    const files = { 'character.yml': fixture('character.yml'), 'faction.yml': fixture('faction.yml') };
    const aspects = projectToDumps({ config: fixture('aspect.yml'), files });
    const summary = await call(
      S.import,
      ImportRequest.parse({ schemaVersion: 1, aspects, mode: 'merge' }),
      ImportReply,
    );
    expect(summary).toEqual({ aspects: 2, elements: 4 });

    const arc = await call(S.find, { uri: '/character/yugui/awakening' }, FindReply);
    expect(arc).toMatchObject({ kind: 'element', element: { id: 'awakening', aspect: 'character' } });

    const { hits } = await call(S.search, { query: '余归', limit: 5 }, SearchReply);
    expect(hits[0]?.uri).toBe('/character/yugui');

    const exported = dumpsToProject((await call(S.export, {}, ExportReply)).aspects);
    expect(parse(exported.config)).toEqual(parse(fixture('aspect.yml')));
    for (const [file, text] of Object.entries(files))
      expect(parse(exported.files[file]!)).toEqual(parse(text));

    const again = await failure(call(S.import, { schemaVersion: 1, aspects, mode: 'merge' }));
    expect(again.code).toBe('ALREADY_EXISTS');
  });

  it('applies operations atomically, publishes resources.changed, and undoes them as one group', async () => {
    const changed = nc.subscribe(Subjects.resourcesChanged, { max: 1 });
    const applied = await call(
      S.apply,
      {
        operations: [
          { type: 'property', uri: '/character/lin_feng', data: { role: 'ally', title: '剑客' } },
          {
            type: 'splice',
            location: { uri: '/faction', childrenKey: null },
            start: 1,
            end: 1,
            data: [{ id: 'night_guild', properties: { name: 'Night Guild' } }],
          },
          {
            type: 'relationship',
            source: '/character/lin_feng',
            target: '/faction/night_guild',
            relations: ['member'],
          },
        ],
        idempotencyKey: 'apply-1',
      },
      ApplyReply,
    );
    expect(applied.changedUris).toEqual(
      expect.arrayContaining(['/character/lin_feng', '/faction/night_guild']),
    );
    expect(applied.undo.map((op) => op.type)).toEqual(['relationship', 'splice', 'property']);
    for await (const m of changed)
      expect(m.json()).toMatchObject({
        cause: 'apply',
        uris: expect.arrayContaining(['/faction/night_guild']),
      });

    // The same idempotency key returns the first reply without applying again.
    await expect(
      call(
        S.apply,
        { operations: [{ type: 'aspect.remove', name: 'faction' }], idempotencyKey: 'apply-1' },
        ApplyReply,
      ),
    ).resolves.toMatchObject({ ...applied, replayed: true, applied: [{}, {}, {}] });

    const undone = await call(S.undo, {}, UndoRedoReply);
    expect(undone).toMatchObject({ status: 'applied', action: 'undo', count: 3 });
    expect((await failure(call(S.find, { uri: '/faction/night_guild' }))).code).toBe('NOT_FOUND');
    expect(await call(S.find, { uri: '/character/lin_feng' }, FindReply)).toMatchObject({
      element: { properties: { role: 'rival' }, relationships: {} },
    });
    expect(await call(S.redo, {}, UndoRedoReply)).toMatchObject({
      status: 'applied',
      action: 'redo',
      count: 3,
    });

    // A batch whose last operation fails leaves nothing applied.
    const bad = await failure(
      call(S.apply, {
        operations: [
          { type: 'property', uri: '/character/yugui', data: { mood: 'calm' } },
          { type: 'property', uri: '/character/nobody', data: { x: 1 } },
        ],
      }),
    );
    expect(bad.code).toBe('NOT_FOUND');
    expect(await call(S.find, { uri: '/character/yugui' }, FindReply)).not.toMatchObject({
      element: { properties: { mood: 'calm' } },
    });
  });

  it('returns segments with exclusions and missing uris', async () => {
    const result = await call(
      S.segments,
      {
        segments: [
          { uri: '/character/yugui', excludedProperties: ['role'] },
          { uri: '/character/ghost', excludedProperties: [] },
        ],
        excludedUris: ['/character/yugui/awakening'],
      },
      SegmentsReply,
    );
    expect(result).toMatchObject({
      segments: [
        { kind: 'element', uri: '/character/yugui', properties: { name: '余归' }, childIds: { arcs: [] } },
      ],
      missing: ['/character/ghost'],
    });
    expect(result.segments[0]!.kind === 'element' && result.segments[0]!.properties).not.toHaveProperty(
      'role',
    );
  });

  it('keeps a backlog and lists the operation history', async () => {
    const { entry } = await call(
      S.backlogAdd,
      { content: { task: '给余归写背景', uri: '/character/yugui' }, priority: 8 },
      BacklogAddReply,
    );
    expect((await call(S.backlogList, {}, BacklogListReply)).entries[0]).toEqual(entry);
    expect((await call(S.backlogRemove, { ids: [entry.id] }, BacklogRemoveReply)).removed).toEqual([entry]);
    const history = await call(S.operations, { limit: 5 }, OperationsListReply);
    expect(history.entries.length).toBeGreaterThan(0);
  });

  const splice = (uri: string, id: string, start = 0, end = 0) => ({
    operations: [
      { type: 'splice', location: { uri, childrenKey: null }, start, end, data: id ? [{ id }] : [] },
    ],
  });
  it.each([
    ['malformed uri', S.find, { uri: 'character/yugui' }, ['VALIDATION_FAILED']],
    ['dot-dot segment', S.find, { uri: '/character/../etc' }, ['VALIDATION_FAILED']],
    ['unknown uri', S.find, { uri: '/character/nobody' }, ['NOT_FOUND']],
    [
      'empty id',
      S.apply,
      {
        operations: [
          {
            type: 'splice',
            location: { uri: '/character', childrenKey: null },
            start: 0,
            end: 0,
            data: [{ id: '' }],
          },
        ],
      },
      ['VALIDATION_FAILED'],
    ],
    ['unknown aspect', S.apply, splice('/weapon', 'sword'), ['NOT_FOUND']],
    ['duplicate element', S.apply, splice('/character', 'yugui'), ['ALREADY_EXISTS']],
    ['splice out of bounds', S.apply, splice('/character', '', 50, 60), ['VALIDATION_FAILED']],
    [
      'reserved property',
      S.apply,
      { operations: [{ type: 'property', uri: '/character/yugui', data: { uri: '/x' } }] },
      ['VALIDATION_FAILED'],
    ],
    [
      'relationships as a children key',
      S.aspectsCreate,
      { name: 'weapon', childrenKeys: ['relationships'], metadata: {} },
      ['VALIDATION_FAILED'],
    ],
    ['wrong field type', S.search, { query: 42 }, ['VALIDATION_FAILED']],
    ['unknown field', S.search, { query: 'x', where: '1=1' }, ['VALIDATION_FAILED']],
    [
      'filter syntax in a query',
      S.search,
      { query: `") OR 1=1 --`, aspect: "character' OR '1'='1" },
      ['NOT_FOUND', 'VALIDATION_FAILED'],
    ],
  ])('%s gets a coded error', async (_label, subject, body, codes) => {
    const err = await failure(call(subject, body));
    expect(codes).toContain(err.code);
  });

  it('rejects non-JSON and oversized payloads, then keeps serving', async () => {
    const bad = await nc.request(S.find, '{not json', { timeout: 5000 });
    expect(bad.json()).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    const big = await failure(call(S.backlogAdd, { content: 'x'.repeat(2 * 1024 * 1024) }));
    expect(big.code).toBe('PAYLOAD_TOO_LARGE');
    await expect(call(S.find, { uri: '/character/yugui' })).resolves.toMatchObject({ kind: 'element' });
  });
});
