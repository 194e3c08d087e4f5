import { AppliedKeys } from './applied-keys';

/** A settable clock. */
function clockAt(iso: string) {
  let now = new Date(iso).getTime();
  return {
    clock: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const reply = (n: number) => ({ undo: [], changedUris: [`/character/c${n}`] });

describe('AppliedKeys', () => {
  it('remembers replies as JSON copies and forgets nothing within its bounds', () => {
    const original = { undo: [{ nested: { n: 1 } }], changedUris: ['/a/b'], dropped: undefined };
    const keys = AppliedKeys.empty().with('k1', original);
    original.undo[0]!.nested.n = 2;
    expect(keys.get('k1')).toEqual({ undo: [{ nested: { n: 1 } }], changedUris: ['/a/b'] });
    const copy = keys.get('k1') as { changedUris: string[] };
    copy.changedUris.push('/mutated');
    expect(keys.get('k1')).toEqual({ undo: [{ nested: { n: 1 } }], changedUris: ['/a/b'] });
    expect(keys.get('unknown')).toBeUndefined();
  });

  it('is immutable: `with` leaves the previous record as it was', () => {
    const before = AppliedKeys.empty().with('k1', reply(1));
    const after = before.with('k2', reply(2));
    expect(before.get('k2')).toBeUndefined();
    expect(before.size).toBe(1);
    expect(after.size).toBe(2);
  });

  it('keeps the newest `max` keys', () => {
    let keys = AppliedKeys.empty({ max: 3, protectedMs: 0 });
    for (let n = 1; n <= 5; n++) keys = keys.with(`k${n}`, reply(n));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['k3', 'k4', 'k5']);
    expect(keys.get('k2')).toBeUndefined();
    expect(keys.get('k3')).toEqual(reply(3));
  });

  it('forgets keys older than `maxAgeMs`, on read and on the next write', () => {
    const time = clockAt('2026-01-01T00:00:00Z');
    let keys = AppliedKeys.empty({ maxAgeMs: 60_000, clock: time.clock }).with('old', reply(1));
    time.advance(30_000);
    keys = keys.with('newer', reply(2));
    time.advance(30_001);
    expect(keys.get('old')).toBeUndefined();
    expect(keys.get('newer')).toEqual(reply(2));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['old', 'newer']);
    keys = keys.with('newest', reply(3));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['newer', 'newest']);
    expect(keys.toJSON()[0]?.at).toBe('2026-01-01T00:00:30.000Z');
  });

  it('keeps the reply bytes under `maxBytes`, oldest first, but always the newest key', () => {
    const big = (n: number) => ({ text: 'x'.repeat(400), n });
    let keys = AppliedKeys.empty({ maxBytes: 1_000, protectedMs: 0 });
    keys = keys.with('a', big(1)).with('b', big(2));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['a', 'b']);
    keys = keys.with('c', big(3));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['b', 'c']);
    keys = keys.with('huge', { text: '余'.repeat(1_000) });
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['huge']);
    expect(keys.get('huge')).toEqual({ text: '余'.repeat(1_000) });
  });

  it('keeps young keys beyond the count and byte bounds (their retry may still come), up to a hard byte bound', () => {
    const time = clockAt('2026-11-23T10:00:00Z');
    const big = (n: number) => ({ undo: ['x'.repeat(880)], changedUris: [`/c/${n}`] });
    let keys = AppliedKeys.empty({ max: 2, maxBytes: 1_000, protectedMs: 60_000, clock: time.clock });
    for (let n = 1; n <= 4; n++) keys = keys.with(`k${n}`, big(n));
    // Over both bounds, but all four were applied within the last minute: all kept (3.6 KB < 4 × 1 KB).
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['k1', 'k2', 'k3', 'k4']);
    keys = keys.with('k5', big(5));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['k2', 'k3', 'k4', 'k5']); // the hard bound
    time.advance(61_000);
    keys = keys.with('k6', big(6));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['k6']); // no longer protected: the usual bounds
    expect(() => AppliedKeys.empty({ protectedMs: -1 })).toThrow(RangeError);
  });

  it('re-recording a key makes it the newest', () => {
    let keys = AppliedKeys.empty({ max: 2, protectedMs: 0 }).with('a', reply(1)).with('b', reply(2));
    keys = keys.with('a', reply(3)).with('c', reply(4));
    expect(keys.toJSON().map((entry) => entry.key)).toEqual(['a', 'c']);
    expect(keys.get('a')).toEqual(reply(3));
  });

  it('round-trips through JSON and applies the current bounds when loading', () => {
    const time = clockAt('2026-01-01T00:00:00Z');
    let keys = AppliedKeys.empty({ clock: time.clock });
    for (let n = 1; n <= 4; n++) keys = keys.with(`k${n}`, reply(n));
    const json = JSON.parse(JSON.stringify(keys.toJSON())) as unknown;
    expect(AppliedKeys.fromJSON(json, { clock: time.clock }).toJSON()).toEqual(keys.toJSON());
    const smaller = AppliedKeys.fromJSON(json, { max: 2, protectedMs: 0, clock: time.clock });
    expect(smaller.toJSON().map((entry) => entry.key)).toEqual(['k3', 'k4']);
    time.advance(24 * 60 * 60_000 + 1);
    expect(AppliedKeys.fromJSON(json, { clock: time.clock }).size).toBe(0);
  });

  it('rejects malformed documents and bad bounds', () => {
    const malformed = [
      [{ key: '', at: '2026-01-01T00:00:00Z', reply: 'null' }],
      [{ key: 'k', at: '2026-01-01T00:00:00Z', reply: { a: 1 } }],
      [{ key: 'k', at: '2026-01-01T00:00:00Z', reply: '{not json' }],
      { k: 1 },
    ];
    for (const json of malformed) {
      expect(() => AppliedKeys.fromJSON(json)).toThrow(
        expect.objectContaining({ code: 'VALIDATION_FAILED' }),
      );
    }
    expect(() => AppliedKeys.empty({ max: 0 })).toThrow(RangeError);
    expect(() => AppliedKeys.empty({ maxAgeMs: 1.5 })).toThrow(RangeError);
  });
});
