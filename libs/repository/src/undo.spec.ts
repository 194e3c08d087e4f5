import type { ReversibleAction } from './operations';
import { UndoLog } from './undo';

const rel = (name: string): ReversibleAction => ({
  method: 'update_relationships',
  source_uri: `/a/${name}`,
  target_uri: '/b/x',
  relationships: [name],
});
const clock = () => new Date('2026-01-01T00:00:00Z');

describe('UndoLog', () => {
  it('undoes a group newest-first and pushes the counter-actions to redo; redo replays oldest-first', async () => {
    const log = new UndoLog({ clock });
    log.record(rel('solo'), null);
    log.record(rel('op1-inverse'), 'g');
    log.record(rel('op2-inverse'), 'g');
    log.record(rel('op3-inverse'), 'g');
    const ran: string[] = [];
    const result = await log.undo((action) => {
      const name = (action as { source_uri: string }).source_uri.slice(3);
      ran.push(name);
      return rel(`${name}-counter`);
    });
    expect(ran).toEqual(['op3-inverse', 'op2-inverse', 'op1-inverse']);
    expect(result).toMatchObject({ group: 'g', count: 3 });
    expect(log.undoSize).toBe(1);
    expect(log.peek(3, 'redo').map((entry) => entry.group)).toEqual(['g', 'g', 'g']);

    const redone: string[] = [];
    await log.redo((action) => {
      redone.push((action as { source_uri: string }).source_uri.slice(3));
      return action;
    });
    expect(redone).toEqual(['op1-inverse-counter', 'op2-inverse-counter', 'op3-inverse-counter']);
    expect(log.redoSize).toBe(0);
    expect(log.undoSize).toBe(4);
  });

  it('a null group pops a single entry', async () => {
    const log = new UndoLog();
    log.record(rel('a'));
    log.record(rel('b'));
    const result = await log.undo((action) => action);
    expect(result?.count).toBe(1);
    expect(log.undoSize).toBe(1);
  });

  it('returns null when there is nothing to undo or redo', async () => {
    const log = new UndoLog();
    await expect(log.undo((action) => action)).resolves.toBeNull();
    await expect(log.redo((action) => action)).resolves.toBeNull();
  });

  it('a new record clears redo; redo does not', async () => {
    const log = new UndoLog();
    log.record(rel('a'));
    log.record(rel('b'));
    await log.undo((action) => action);
    await log.undo((action) => action);
    await log.redo((action) => action);
    expect(log.redoSize).toBe(1);
    log.record(rel('c'));
    expect(log.redoSize).toBe(0);
  });

  it('caps each stack, dropping the oldest', () => {
    const log = new UndoLog({ cap: 3 });
    for (const name of ['1', '2', '3', '4', '5']) log.record(rel(name));
    expect(log.undoSize).toBe(3);
    expect(log.peek(10).map((entry) => entry.description)).toEqual([
      'set relationships /a/5 -> /b/x',
      'set relationships /a/4 -> /b/x',
      'set relationships /a/3 -> /b/x',
    ]);
  });

  it('drops whole groups to stay within the cap, never part of one, and keeps the newest group whole', async () => {
    const log = new UndoLog({ cap: 4 });
    for (const name of ['1', '2', '3']) log.record(rel(name), 'A');
    for (const name of ['4', '5', '6']) log.record(rel(name), 'B');
    // A (3) + B (3) is over the cap: A goes whole, not its oldest entries.
    expect(log.undoSize).toBe(3);
    log.record(rel('7'), null);
    expect(log.undoSize).toBe(4);
    for (const name of ['8', '9', '10', '11', '12']) log.record(rel(name), 'C');
    // C alone (5) is larger than the cap: it is kept whole, and undone whole.
    expect(log.undoSize).toBe(5);
    expect(await log.undo((action) => action)).toMatchObject({ group: 'C', count: 5 });
    // A stack saved under a larger cap is trimmed the same way when loaded.
    const wide = new UndoLog({ cap: 100 });
    for (const name of ['1', '2', '3']) wide.record(rel(name), 'A');
    for (const name of ['4', '5', '6']) wide.record(rel(name), 'B');
    const reloaded = UndoLog.fromJSON(wide.toJSON(), { cap: 4 });
    expect(reloaded.peek(10).map((entry) => entry.group)).toEqual(['B', 'B', 'B']);
  });

  it('puts the group back when running it fails', async () => {
    const log = new UndoLog();
    log.record(rel('1'), 'g');
    log.record(rel('2'), 'g');
    let calls = 0;
    await expect(
      log.undo(() => {
        calls += 1;
        if (calls === 2) throw new Error('boom');
        return rel('x');
      }),
    ).rejects.toThrow('boom');
    expect(log.undoSize).toBe(2);
    expect(log.redoSize).toBe(0);
    expect(log.peek(2).map((entry) => entry.action)).toEqual([rel('2'), rel('1')]);
  });

  it('round-trips through JSON and rejects malformed documents', () => {
    const log = new UndoLog({ clock });
    log.record(rel('a'), 'g');
    const json = JSON.parse(JSON.stringify(log.toJSON()));
    expect(json).toEqual({
      schemaVersion: 1,
      undo: [
        {
          action: rel('a'),
          group: 'g',
          description: 'set relationships /a/a -> /b/x',
          at: '2026-01-01T00:00:00.000Z',
        },
      ],
      redo: [],
    });
    expect(UndoLog.fromJSON(json).toJSON()).toEqual(json);
    expect(() =>
      UndoLog.fromJSON({ schemaVersion: 1, undo: [{ action: { method: 'x' } }], redo: [] }),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
