import { Backlog } from './backlog';

function backlog(): Backlog {
  let tick = 0;
  let id = 0;
  return new Backlog({
    clock: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)),
    newId: () => `b${++id}`,
  });
}

describe('Backlog', () => {
  it('lists by priority desc, then oldest first; default priority 5', () => {
    const log = backlog();
    log.add('low', 1);
    log.add('mid-old');
    log.add('high', 9);
    log.add('mid-new', 5);
    expect(log.list().map((entry) => entry.content)).toEqual(['high', 'mid-old', 'mid-new', 'low']);
    expect(log.list()[1]).toEqual({
      id: 'b2',
      content: 'mid-old',
      priority: 5,
      createdAt: '2026-01-01T00:00:01.000Z',
    });
  });

  it('dedupes identical content keeping the max priority', () => {
    const log = backlog();
    const first = log.add('write chapter 2', 3);
    const again = log.add('  write chapter 2 ', 7);
    log.add('write chapter 2', 1);
    expect(again.id).toBe(first.id);
    expect(log.size).toBe(1);
    expect(log.list()[0]?.priority).toBe(7);
  });

  it('removes by id, takes the top entries', () => {
    const log = backlog();
    const a = log.add('a', 2);
    log.add('b', 8);
    log.add('c', 5);
    expect(log.remove(a.id)).toBe(true);
    expect(log.remove('nope')).toBe(false);
    expect(log.top(1).map((entry) => entry.content)).toEqual(['b']);
    expect(log.take(1).map((entry) => entry.content)).toEqual(['b']);
    expect(log.list().map((entry) => entry.content)).toEqual(['c']);
  });

  it('validates content and priority', () => {
    const log = backlog();
    expect(() => log.add('   ')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => log.add('x', 11)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => log.add('x', 2.5)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('round-trips through JSON', () => {
    const log = backlog();
    log.add('a', 2);
    log.add('b', 8);
    const copy = Backlog.fromJSON(JSON.parse(JSON.stringify(log.toJSON())));
    expect(copy.list()).toEqual(log.list());
    expect(() =>
      Backlog.fromJSON({
        schemaVersion: 1,
        entries: [{ id: 'x', content: 'y', priority: 99, createdAt: '' }],
      }),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
