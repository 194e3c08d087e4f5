import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BusError, busRequest, startService, type RunningService } from '@novelrag/bus';
import { Subjects } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { parse } from 'yaml';
import { z } from 'zod';
import { resourceServiceDefinition } from '../service.definition';

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
    const summary = await call(S.import, { config: fixture('aspect.yml'), files });
    expect(summary).toEqual({ aspects: ['character', 'faction'], elements: 4 });

    const arc = await call(S.find, { uri: '/character/yugui/awakening' });
    expect(arc).toMatchObject({
      found: { kind: 'element', element: { id: 'awakening', aspect: 'character' } },
    });

    const { hits } = await call<{ hits: { uri: string }[] }>(S.search, { query: '余归', limit: 5 });
    expect(hits[0]?.uri).toBe('/character/yugui');

    const exported = await call<{ config: string; files: Record<string, string> }>(S.export, {});
    expect(parse(exported.config)).toEqual(parse(fixture('aspect.yml')));
    for (const [file, text] of Object.entries(files))
      expect(parse(exported.files[file]!)).toEqual(parse(text));
  });

  it('applies operations, publishes resources.changed, and undoes them as one group', async () => {
    const changed = nc.subscribe(Subjects.resourcesChanged, { max: 1 });
    const applied = await call(S.apply, {
      operations: [
        { target: 'property', resource_uri: '/character/lin_feng', data: { role: 'ally', title: '剑客' } },
        {
          target: 'resource',
          location: { resource_uri: '/faction', children_key: null },
          start: 1,
          end: 1,
          data: [{ id: 'night_guild', name: 'Night Guild' }],
        },
      ],
    });
    expect(applied).toMatchObject({
      uris: expect.arrayContaining(['/character/lin_feng', '/faction/night_guild']),
    });
    for await (const m of changed)
      expect(m.json()).toMatchObject({
        cause: 'apply',
        uris: expect.arrayContaining(['/faction/night_guild']),
      });

    const undone = await call(S.undo, {});
    expect(undone).toMatchObject({ action: 'undo', performed: true, count: 2 });
    expect(await call(S.find, { uri: '/faction/night_guild' })).toEqual({
      uri: '/faction/night_guild',
      found: null,
    });
    expect(await call(S.find, { uri: '/character/lin_feng' })).toMatchObject({
      found: { element: { role: 'rival' } },
    });
    expect(await call(S.redo, {})).toMatchObject({ action: 'redo', performed: true, count: 2 });
  });

  it('returns segments with exclusions and missing uris', async () => {
    const result = await call(S.segments, {
      segments: [{ uri: '/character/yugui', excludedProperties: ['role'] }, { uri: '/character/ghost' }],
      excludedUris: ['/character/yugui/awakening'],
    });
    expect(result).toMatchObject({
      segments: [{ uri: '/character/yugui', properties: { name: '余归' }, childIds: { arcs: [] } }],
      missing: ['/character/ghost'],
    });
    expect((result as { segments: { properties: object }[] }).segments[0]!.properties).not.toHaveProperty(
      'role',
    );
  });

  it.each([
    ['malformed uri', S.find, { uri: 'character/yugui' }, ['INVALID_URI', 'VALIDATION_FAILED']],
    ['dot-dot segment', S.find, { uri: '/character/../etc' }, ['INVALID_URI', 'VALIDATION_FAILED']],
    [
      'empty id',
      S.apply,
      {
        operations: [
          {
            target: 'resource',
            location: { resource_uri: '/character', children_key: null },
            start: 0,
            end: 0,
            data: [{ id: '' }],
          },
        ],
      },
      ['VALIDATION_FAILED', 'INVALID_URI'],
    ],
    [
      'unknown aspect',
      S.apply,
      {
        operations: [
          {
            target: 'resource',
            location: { resource_uri: '/weapon', children_key: null },
            start: 0,
            end: 0,
            data: [{ id: 'sword' }],
          },
        ],
      },
      ['NOT_FOUND'],
    ],
    [
      'reserved property',
      S.apply,
      { operations: [{ target: 'property', resource_uri: '/character/yugui', data: { uri: '/x' } }] },
      ['VALIDATION_FAILED'],
    ],
    [
      'duplicate element',
      S.apply,
      {
        operations: [
          {
            target: 'resource',
            location: { resource_uri: '/character', children_key: null },
            start: 0,
            end: 0,
            data: [{ id: 'yugui' }],
          },
        ],
      },
      ['ALREADY_EXISTS'],
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
    await expect(call(S.find, { uri: '/character/yugui' })).resolves.toMatchObject({
      found: { kind: 'element' },
    });
  });
});
