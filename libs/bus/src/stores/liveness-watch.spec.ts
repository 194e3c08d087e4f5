import { LivenessWatch } from './liveness-watch';

describe('LivenessWatch (lease liveness on the observer’s own clock)', () => {
  const holder = (beat: number) => ({ owner: 'g-1:a', beat });

  it('counts an entry first seen as alive, and dead once its beat has not changed for the lease', () => {
    const watch = new LivenessWatch(3_000);
    expect(watch.observe('k', [holder(7)], 1_000)(holder(7))).toBe(true);
    expect(watch.observe('k', [holder(7)], 4_000)(holder(7))).toBe(true);
    expect(watch.observe('k', [holder(7)], 4_001)(holder(7))).toBe(false);
  });

  it('a new beat restarts the count, whatever time the holder’s host thinks it is', () => {
    const watch = new LivenessWatch(3_000);
    watch.observe('k', [holder(1)], 0);
    expect(watch.observe('k', [holder(2)], 2_900)(holder(2))).toBe(true);
    expect(watch.observe('k', [holder(2)], 5_800)(holder(2))).toBe(true);
    expect(watch.observe('k', [holder(2)], 6_000)(holder(2))).toBe(false);
  });

  it('forgets entries gone from the record, and the oldest keys beyond its bound', () => {
    const watch = new LivenessWatch(3_000, 2);
    watch.observe('a', [holder(1)], 0);
    watch.observe('a', [], 1); // the holder left: seen again later, it counts as new
    expect(watch.observe('a', [holder(1)], 10_000)(holder(1))).toBe(true);
    watch.observe('b', [holder(1)], 0);
    watch.observe('c', [holder(1)], 0); // 'a' is forgotten (bound 2)
    expect(watch.observe('a', [holder(1)], 20_000)(holder(1))).toBe(true);
    expect(watch.observe('b', [holder(1)], 20_000)(holder(1))).toBe(true); // 'b' was forgotten by 'a' coming back
  });
});
