/// <reference types="jest" />
import { type ContractContext, expectCode } from './context';
import { writeWorld } from './fixtures';

const properties = async (ctx: ContractContext, uri: string) => {
  const found = await ctx.service.find({ uri });
  return found.kind === 'element' ? found.element.properties : undefined;
};

export function registerWriteCases(ctx: () => ContractContext): void {
  it('apply: returns the inverse operations and every changed URI; applying the inverse restores', async () => {
    const name = ctx().unique('people');
    const { yu } = await writeWorld(ctx(), name);
    const reply = await ctx().service.apply({
      operations: [{ type: 'property', uri: yu, data: { role: 'heroine', secret: null } }],
    });
    expect(reply.changedUris).toContain(yu);
    expect(reply.replayed).toBeUndefined();
    expect(await properties(ctx(), yu)).toEqual({ name: '余归', role: 'heroine' });
    await ctx().service.apply({ operations: reply.undo });
    expect(await properties(ctx(), yu)).toEqual({ name: '余归', role: 'protagonist', secret: 'hidden past' });
  });

  it('apply: all or nothing; a bad operation names its code and leaves the data as it was', async () => {
    const name = ctx().unique('people');
    const { yu } = await writeWorld(ctx(), name);
    await expectCode(
      ctx().service.apply({
        operations: [
          { type: 'property', uri: yu, data: { role: 'changed' } },
          { type: 'property', uri: `/${name}/ghost`, data: { role: 'x' } },
        ],
      }),
      'NOT_FOUND',
    );
    expect((await properties(ctx(), yu))?.['role']).toBe('protagonist');
    await expectCode(ctx().service.apply({ operations: [] }), 'VALIDATION_FAILED');
  });

  it('apply: a repeated idempotency key is answered with the first reply and applies nothing', async () => {
    const name = ctx().unique('people');
    const { yu } = await writeWorld(ctx(), name);
    const key = ctx().unique('invocation');
    const first = await ctx().service.apply({
      operations: [{ type: 'property', uri: yu, data: { mood: 'calm' } }],
      idempotencyKey: key,
    });
    const again = await ctx().service.apply({
      operations: [{ type: 'property', uri: yu, data: { mood: 'angry' } }],
      idempotencyKey: key,
    });
    expect(again).toMatchObject({ replayed: true, changedUris: first.changedUris });
    expect(again.applied).toEqual([{ type: 'property', uri: yu, data: { mood: 'calm' } }]);
    expect((await properties(ctx(), yu))?.['mood']).toBe('calm');
  });

  it('relationships: sets the list one way and returns the previous one', async () => {
    const name = ctx().unique('people');
    const { yu, lin } = await writeWorld(ctx(), name);
    const set = (relations: string[]) => ctx().service.relationships({ source: lin, target: yu, relations });
    await expect(set(['owes a debt to'])).resolves.toEqual({ previous: [] });
    await expect(set(['rival of'])).resolves.toEqual({ previous: ['owes a debt to'] });
    const found = await ctx().service.find({ uri: lin });
    expect(found.kind === 'element' && found.element.relationships).toEqual({ [yu]: ['rival of'] });
    await expectCode(
      ctx().service.relationships({ source: `/${name}`, target: yu, relations: ['x'] }),
      'VALIDATION_FAILED',
    );
  });

  it('aspects: create refuses a taken name; remove takes the elements and undo brings them back', async () => {
    const name = ctx().unique('places');
    const created = await ctx().service.aspectsCreate({
      name,
      description: 'Where it happens',
      childrenKeys: [],
      metadata: { climate: 'humid' },
    });
    expect(created.aspect).toMatchObject({
      name,
      description: 'Where it happens',
      metadata: { climate: 'humid' },
    });
    await expectCode(ctx().service.aspectsCreate({ name, childrenKeys: [], metadata: {} }), 'ALREADY_EXISTS');
    const people = ctx().unique('people');
    await writeWorld(ctx(), people);
    await expect(ctx().service.aspectsRemove({ name: people })).resolves.toMatchObject({
      aspect: { name: people },
      removedElements: 3,
    });
    await expectCode(ctx().service.find({ uri: `/${people}` }), 'NOT_FOUND');
    await expect(ctx().service.undo()).resolves.toMatchObject({ status: 'applied', action: 'undo' });
    await expect(ctx().service.find({ uri: `/${people}/yu_gui/ash_sword` })).resolves.toMatchObject({
      kind: 'element',
    });
    await expectCode(ctx().service.aspectsRemove({ name: ctx().unique('absent') }), 'NOT_FOUND');
  });

  it('undo and redo replay one group each and show in the operations history', async () => {
    const name = ctx().unique('people');
    const { yu } = await writeWorld(ctx(), name);
    await ctx().service.apply({
      operations: [
        { type: 'property', uri: yu, data: { age: 17 } },
        { type: 'property', uri: yu, data: { home: 'Azure Peak' } },
      ],
    });
    const { entries } = await ctx().service.operations({ limit: 2 });
    expect(entries.filter((e) => e.stack === 'undo')).toHaveLength(2);
    expect(entries[0]).toMatchObject({ stack: 'undo', operation: { type: 'property', uri: yu } });
    const undo = await ctx().service.undo({});
    expect(undo).toMatchObject({ status: 'applied', action: 'undo', count: 2, changedUris: [yu] });
    expect(await properties(ctx(), yu)).not.toHaveProperty('age');
    const redo = await ctx().service.redo();
    expect(redo).toMatchObject({ status: 'applied', action: 'redo', count: 2 });
    expect(await properties(ctx(), yu)).toMatchObject({ age: 17, home: 'Azure Peak' });
    await expect(ctx().service.redo()).resolves.toEqual({ status: 'empty', action: 'redo' });
  });

  it('import: merge refuses an existing aspect, replace overwrites it', async () => {
    const name = ctx().unique('people');
    await writeWorld(ctx(), name);
    const dump = (await ctx().service.export({ aspects: [name] })).aspects;
    await expectCode(
      ctx().service.import({ schemaVersion: 1, aspects: dump, mode: 'merge' }),
      'ALREADY_EXISTS',
    );
    const renamed = ctx().unique('copies');
    const copy = dump.map((d) => ({ ...d, aspect: { ...d.aspect, name: renamed } }));
    await expect(ctx().service.import({ schemaVersion: 1, aspects: copy, mode: 'merge' })).resolves.toEqual({
      aspects: 1,
      elements: 3,
    });
    const single = copy.map((d) => ({ ...d, elements: d.elements.slice(1) }));
    await ctx().service.import({ schemaVersion: 1, aspects: single, mode: 'replace' });
    await expect(ctx().service.find({ uri: `/${renamed}` })).resolves.toMatchObject({ rootIds: ['lin_wu'] });
  });

  it('import: concurrent replace imports of one aspect both succeed, and the aspect holds one of them whole', async () => {
    const source = ctx().unique('people');
    await writeWorld(ctx(), source);
    const [dump] = (await ctx().service.export({ aspects: [source] })).aspects;
    if (!dump) throw new Error(`the export of ${source} is empty`);
    const name = ctx().unique('imported'); // absent: both imports find no aspect to replace before either ran
    const shaped = (elements: typeof dump.elements) => ({
      schemaVersion: 1 as const,
      aspects: [{ ...dump, aspect: { ...dump.aspect, name }, elements }],
      mode: 'replace' as const,
    });
    const results = await Promise.allSettled([
      ctx().service.import(shaped(dump.elements.slice(0, 1))),
      ctx().service.import(shaped(dump.elements.slice(1))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const rootIds = ((await ctx().service.find({ uri: `/${name}` })) as { rootIds: string[] }).rootIds;
    const first = dump.elements.slice(0, 1).map((e) => e.id);
    const second = dump.elements.slice(1).map((e) => e.id);
    expect([first, second]).toContainEqual(rootIds);
  });
}
