import { sample, weightedChoice } from './content-generation';

/** A random source that replays the given values. */
const replay = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
};

describe('content choice', () => {
  it('samples distinct items, as many as exist at most', () => {
    expect(sample(['a', 'b', 'c', 'd', 'e'], 2, replay(0.99, 0))).toEqual(['e', 'a']);
    expect(sample(['a'], 2, replay(0.5))).toEqual(['a']);
    expect(sample([], 2, replay(0.5))).toEqual([]);
  });

  it('favours the best-ranked proposal with weights 2^(n-1-i)', () => {
    // n = 3: weights 4, 2, 1 of 7.
    expect(weightedChoice(['best', 'mid', 'last'], replay(0))).toBe('best');
    expect(weightedChoice(['best', 'mid', 'last'], replay(3.99 / 7))).toBe('best');
    expect(weightedChoice(['best', 'mid', 'last'], replay(4.01 / 7))).toBe('mid');
    expect(weightedChoice(['best', 'mid', 'last'], replay(6.5 / 7))).toBe('last');
    expect(weightedChoice([], replay(0.3))).toBeUndefined();
  });
});
