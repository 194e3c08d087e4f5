import { gzipSync } from 'node:zlib';
import { isResourceError } from '@novelrag/repository';
import { pack } from 'tar-stream';
import { stringify } from 'yaml';
import { planProjectFiles, readProjectArchive } from './project-archive';

type Entry = { name: string; text?: string; type?: 'file' | 'directory' | 'symlink'; linkname?: string };

/** A tar archive of the entries, built with the same library the gateway reads it with. */
async function tarOf(entries: Entry[]): Promise<Buffer> {
  const tar = pack();
  for (const { name, text = '', type = 'file', linkname } of entries) {
    if (type === 'file') tar.entry({ name }, text);
    else tar.entry({ name, type, ...(linkname ? { linkname } : {}) });
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const CONFIG = stringify({ character: { path: 'data/characters.yml' }, place: { path: 'place.yml' } });
const CHARACTERS = stringify([{ id: 'yugui', name: '余归', arcs: [] }]);
const PLACES = stringify([{ id: 'danxia', name: '丹霞阁' }]);

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isResourceError(err)) throw new Error(`expected a ResourceError, got ${String(err)}`);
  return { code: err.code, message: err.message };
}

describe('project archives (upload import)', () => {
  it('plans a gzipped archive in one top folder, reporting unnamed files and links as skipped', async () => {
    const archive = gzipSync(
      await tarOf([
        { name: 'world/', type: 'directory' },
        { name: 'world/aspect.yml', text: CONFIG },
        { name: 'world/data/characters.yml', text: CHARACTERS },
        { name: 'world/./place.yml', text: PLACES },
        { name: 'world/notes.yml', text: 'just notes' },
        { name: 'world/latest.yml', type: 'symlink', linkname: 'place.yml' },
      ]),
    );
    const plan = planProjectFiles(await readProjectArchive(archive));
    expect(plan.batches.map((b) => [b.aspect.name, b.elements.map((e) => e.id)])).toEqual([
      ['character', ['yugui']],
      ['place', ['danxia']],
    ]);
    expect(plan.skipped).toEqual([
      { item: 'world/latest.yml', reason: 'a symlink entry, not a file' },
      { item: 'notes.yml', reason: 'not named by aspect.yml' },
    ]);
  });

  it.each([
    ['a parent path', '../outside.yml'],
    ['an absolute path', '/etc/passwd'],
    ['a path that climbs out midway', 'data/../../outside.yml'],
  ])('refuses an entry with %s', async (_label, name) => {
    const archive = await tarOf([
      { name: 'aspect.yml', text: CONFIG },
      { name, text: 'x' },
    ]);
    expect(await failure(readProjectArchive(archive))).toEqual({
      code: 'VALIDATION_FAILED',
      message: `archive entry ${name} would leave the project`,
    });
  });

  it('refuses a config that names a file outside the project, and one that names a missing file', async () => {
    const escaping = await tarOf([{ name: 'aspect.yml', text: stringify({ a: { path: '../a.yml' } }) }]);
    expect((await failure(readProjectArchive(escaping).then(planProjectFiles))).message).toBe(
      'file ../a.yml would leave the project',
    );
    const missing = await tarOf([
      { name: 'aspect.yml', text: CONFIG },
      { name: 'place.yml', text: PLACES },
    ]);
    expect(await failure(readProjectArchive(missing).then(planProjectFiles))).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'aspect character: file data/characters.yml named by the config is missing',
    });
  });

  it('refuses an archive without aspect.yml, one that is not tar, and one that unpacks past the bound', async () => {
    const bare = await tarOf([{ name: 'place.yml', text: PLACES }]);
    expect((await failure(readProjectArchive(bare).then(planProjectFiles))).message).toBe(
      'the project holds no aspect.yml',
    );
    expect((await failure(readProjectArchive(Buffer.from('not an archive at all')))).code).toBe(
      'VALIDATION_FAILED',
    );
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024));
    expect((await failure(readProjectArchive(bomb, 1024 * 1024))).message).toBe(
      'the archive unpacks to more than 1048576 bytes',
    );
  });
});

describe('project archives: names and bounds', () => {
  it('imports two aspects that name one file spelled differently, as a directory import does', async () => {
    const config = stringify({ place: { path: 'place.yml' }, site: { path: './place.yml' } });
    const archive = await tarOf([
      { name: 'aspect.yml', text: config },
      { name: 'place.yml', text: PLACES },
    ]);
    const plan = planProjectFiles(await readProjectArchive(archive));
    expect(plan.batches.map((b) => b.aspect.name)).toEqual(['place', 'site']);
  });

  it('reads a file named like an Object.prototype member, and reports one that is missing as missing', async () => {
    const named = await tarOf([
      { name: 'aspect.yml', text: stringify({ a: { path: '__proto__' }, b: { path: 'constructor' } }) },
      { name: '__proto__', text: PLACES },
      { name: 'constructor', text: PLACES },
    ]);
    const plan = planProjectFiles(await readProjectArchive(named));
    expect(plan.batches.map((b) => [b.aspect.name, b.elements.map((e) => e.id)])).toEqual([
      ['a', ['danxia']],
      ['b', ['danxia']],
    ]);
    const missing = await tarOf([{ name: 'aspect.yml', text: stringify({ a: { path: 'toString' } }) }]);
    expect((await failure(readProjectArchive(missing).then(planProjectFiles))).message).toBe(
      'aspect a: file toString named by the config is missing',
    );
  });

  it('bounds an uncompressed archive by the unpacked size too', async () => {
    const big = await tarOf([{ name: 'aspect.yml', text: 'x'.repeat(2 * 1024 * 1024) }]);
    expect((await failure(readProjectArchive(big, 1024 * 1024))).message).toBe(
      'the archive unpacks to more than 1048576 bytes',
    );
  });
});
