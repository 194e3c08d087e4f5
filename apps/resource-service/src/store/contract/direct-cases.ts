/// <reference types="jest" />
import { wholeAspects } from '@novelrag/repository';
import type { ContractContext } from './context';
import { contractEmbedder, makeAspect, makeItem, makeRecord, NASTY_ID, normalised } from './fixtures';

/** A query text no store can keyword-match, so only the vector side ranks. */
const NO_KEYWORD = '◇◇◇';

/** Store-level cases: every port method and its persistence, without the repository. */
export function registerDirectCases(ctx: () => ContractContext): void {
  it('loads an empty state from a new store', async () => {
    expect(await ctx().store.load()).toEqual({ aspects: [], records: [], undo: null, backlog: null });
  });

  it('upserts records and loads them back with their hashes, JSON properties intact', async () => {
    const a = makeRecord('/character/yu_gui', {
      name: '余归',
      age: 17,
      alive: true,
      nothing: null,
      tags: ['主角', 'hero', 3],
      nested: { deep: { deeper: ['x', { y: 1.5 }] } },
    });
    const b = makeRecord(
      '/character/lin',
      { name: 'Lin' },
      { relationships: { '/character/yu_gui': ['friend'] } },
    );
    await ctx().store.upsert([makeItem(a), makeItem(b)]);
    const state = await ctx().store.load();
    expect(normalised(state).records).toEqual([
      { record: b, hash: makeItem(b).hash },
      { record: a, hash: makeItem(a).hash },
    ]);
  });

  it('treats an empty upsert and an empty delete as no-ops', async () => {
    await ctx().store.upsert([makeItem(makeRecord('/character/a', { n: 1 }))]);
    await ctx().store.upsert([]);
    await ctx().store.delete([]);
    expect((await ctx().store.load()).records).toHaveLength(1);
  });

  it('replaces a record by uri instead of duplicating it', async () => {
    const uri = '/character/a';
    await ctx().store.upsert([makeItem(makeRecord(uri, { n: 1 }))]);
    const updated = makeRecord(uri, { n: 2, extra: 'x' });
    await ctx().store.upsert([makeItem(updated)]);
    const { records } = await ctx().store.load();
    expect(records).toEqual([{ record: updated, hash: makeItem(updated).hash }]);
  });

  it('keeps the stored vector on an upsert with vector null (search still finds it by that vector)', async () => {
    const target = makeRecord('/character/target', { name: 'alpha beta gamma' });
    const other = makeRecord('/character/other', { name: '完全不同的内容' });
    await ctx().store.upsert([makeItem(target), makeItem(other)]);
    const changed = { ...target, relationships: { '/character/other': ['knows'] } };
    await ctx().store.upsert([{ ...makeItem(changed), vector: null }]);
    const vector = contractEmbedder().embedOne(makeItem(target).text);
    const hits = await ctx().store.search({ text: NO_KEYWORD, vector, limit: 1 });
    expect(hits.map((hit) => hit.uri)).toEqual(['/character/target']);
    const { records } = await ctx().store.load();
    expect(records.find((stored) => stored.record.uri === target.uri)?.record).toEqual(changed);
  });

  it('deletes by uri; deleting absent uris is a no-op', async () => {
    const items = ['a', 'b', 'c'].map((id) => makeItem(makeRecord(`/character/${id}`, { id_copy: id })));
    await ctx().store.upsert(items);
    await ctx().store.delete(['/character/b', '/character/absent', '/nothing/here']);
    await ctx().store.delete(['/character/b']);
    const uris = (await ctx().store.load()).records.map((stored) => stored.record.uri).sort();
    expect(uris).toEqual(['/character/a', '/character/c']);
  });

  it('escapes uris with quotes and SQL-like text in deletes (no injection)', async () => {
    const nasty = makeRecord(`/character/${NASTY_ID}`, { name: 'nasty' });
    const quote = makeRecord(`/character/o'neil`, { name: "O'Neil" });
    const plain = makeRecord('/character/plain', { name: 'plain' });
    const slash = makeRecord('/character/back\\slash\\', { name: 'slash' });
    await ctx().store.upsert([makeItem(nasty), makeItem(quote), makeItem(plain), makeItem(slash)]);
    await ctx().store.delete([nasty.uri, `/character/x' OR '1'='1`, `/character/%`, slash.uri]);
    const uris = (await ctx().store.load()).records.map((stored) => stored.record.uri).sort();
    expect(uris).toEqual([`/character/o'neil`, '/character/plain']);
    await ctx().store.delete([quote.uri]);
    expect((await ctx().store.load()).records.map((stored) => stored.record.uri)).toEqual([
      '/character/plain',
    ]);
  });

  it('saves and replaces the aspect list, order and root ids included', async () => {
    const first = [makeAspect('character', ['a', 'b']), makeAspect('outline', ['c1'], ['scenes'])];
    await ctx().store.updateAspects(wholeAspects(first));
    expect((await ctx().store.load()).aspects).toEqual(first);
    const second = [
      makeAspect('outline', [], ['scenes']),
      makeAspect("o'brien", ['x']),
      makeAspect('地点', ['城']),
    ];
    await ctx().store.updateAspects(wholeAspects(second));
    expect((await ctx().store.load()).aspects).toEqual(second);
  });

  it('applies aspect changes (root splices, order, removal) once however often it gets them, across a restart', async () => {
    await ctx().store.updateAspects(
      wholeAspects([makeAspect('character', ['a', 'b', 'c']), makeAspect('outline', ['o1'], ['scenes'])]),
    );
    // Appends d, e to character; creates location before outline; removes nothing yet.
    const grow = {
      order: ['character', 'location', 'outline'],
      put: [makeAspect('location', ['城'])],
      roots: [{ aspect: 'character', head: 3, ids: ['d', 'e'], tail: 0 }],
    };
    // Replaces b, c by x in character; drops outline.
    const shrink = {
      order: ['location', 'character'],
      put: [],
      roots: [{ aspect: 'character', head: 1, ids: ['x'], tail: 2 }],
    };
    for (const delta of [grow, grow, shrink, shrink]) await ctx().store.updateAspects(delta);
    const expected = [makeAspect('location', ['城']), makeAspect('character', ['a', 'x', 'd', 'e'])];
    expect((await ctx().store.load()).aspects).toEqual(expected);
    const reopened = await ctx().restart();
    expect((await reopened.load()).aspects).toEqual(expected);
    await reopened.updateAspects({
      order: ['location', 'character'],
      put: [],
      roots: [{ aspect: 'character', head: 4, ids: ['f'], tail: 0 }],
    });
    await expect(
      reopened.updateAspects({
        order: ['character'],
        put: [],
        roots: [{ aspect: 'character', head: 9, ids: [], tail: 0 }],
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    const last = [makeAspect('location', ['城']), makeAspect('character', ['a', 'x', 'd', 'e', 'f'])];
    expect((await (await ctx().restart()).load()).aspects).toEqual(last);
  });

  it('saves and overwrites the undo and backlog documents', async () => {
    await ctx().store.saveUndo({ schemaVersion: 1, undo: [{ text: '余归 "q" \'s' }], redo: [] });
    await ctx().store.saveBacklog({ schemaVersion: 1, entries: [{ id: 'e1', content: '写第二章' }] });
    const undo = { schemaVersion: 1, undo: [], redo: [{ n: 1 }] };
    const backlog = { schemaVersion: 1, entries: [] };
    await ctx().store.saveUndo(undo);
    await ctx().store.saveBacklog(backlog);
    const state = await ctx().store.load();
    expect(state.undo).toEqual(undo);
    expect(state.backlog).toEqual(backlog);
  });

  it('returns the same state after a restart', async () => {
    const items = [
      makeItem(makeRecord('/character/余归', { name: '余归' })),
      makeItem(makeRecord('/outline/c1', { title: 'One' }, { children: { scenes: ['s1'] } })),
      makeItem(makeRecord('/outline/c1/s1', { title: 'Scene' }, { children: { scenes: [] } })),
    ];
    await ctx().store.upsert(items);
    await ctx().store.updateAspects(
      wholeAspects([makeAspect('character', ['余归']), makeAspect('outline', ['c1'], ['scenes'])]),
    );
    await ctx().store.saveUndo({ schemaVersion: 1, undo: [], redo: [] });
    await ctx().store.saveBacklog({ schemaVersion: 1, entries: [{ id: 'x', content: 'y', priority: 5 }] });
    const before = normalised(await ctx().store.load());
    const reopened = await ctx().restart();
    expect(normalised(await reopened.load())).toEqual(before);
  });

  it('keeps vectors across a restart', async () => {
    const target = makeRecord('/location/peak', { name: 'Azure Peak', note: 'snowy mountain' });
    const other = makeRecord('/location/sea', { name: '大海' });
    await ctx().store.upsert([makeItem(target), makeItem(other)]);
    const reopened = await ctx().restart();
    const vector = contractEmbedder().embedOne(makeItem(target).text);
    const hits = await reopened.search({ text: NO_KEYWORD, vector, limit: 2 });
    expect(hits[0]?.uri).toBe('/location/peak');
  });

  it('searches an empty store and a zero limit without failing', async () => {
    const vector = contractEmbedder().embedOne('余归');
    expect(await ctx().store.search({ text: '余归', vector, limit: 5 })).toEqual([]);
    await ctx().store.upsert([makeItem(makeRecord('/character/yu', { name: '余归' }))]);
    expect(await ctx().store.search({ text: '余归', vector, limit: 0 })).toEqual([]);
    const hits = await ctx().store.search({ text: '余归', vector, limit: 5 });
    expect(hits.map((hit) => hit.uri)).toEqual(['/character/yu']);
    expect(typeof hits[0]?.score).toBe('number');
  });
}
