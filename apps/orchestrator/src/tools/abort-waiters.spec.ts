import { getEventListeners } from 'node:events';
import { onAbort } from './tool-attempt';

describe('onAbort (one listener per goal signal for every attempt waiting on it)', () => {
  it('calls every waiter once when the signal aborts, not those that stopped waiting', () => {
    const goal = new AbortController();
    const called: string[] = [];
    const stopA = onAbort(goal.signal, () => called.push('a'));
    onAbort(goal.signal, () => called.push('b'));
    const same = () => called.push('twice');
    onAbort(goal.signal, same);
    onAbort(goal.signal, same);
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(1);
    stopA();
    goal.abort('cancelled');
    expect(called).toEqual(['b', 'twice', 'twice']);
  });

  it('leaves nothing on the signal once the last waiter stopped, and listens again for the next', () => {
    const goal = new AbortController();
    const stops = [onAbort(goal.signal, () => undefined), onAbort(goal.signal, () => undefined)];
    stops[0]?.();
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(1);
    stops[1]?.();
    stops[1]?.(); // stopping twice changes nothing
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
    let called = 0;
    onAbort(goal.signal, () => (called += 1));
    goal.abort('cancelled');
    expect(called).toBe(1);
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
  });

  it('does not call a waiter added after the abort (as a listener would not be)', () => {
    const goal = new AbortController();
    goal.abort('cancelled');
    let called = 0;
    const stop = onAbort(goal.signal, () => (called += 1));
    stop();
    expect(called).toBe(0);
    expect(getEventListeners(goal.signal, 'abort')).toHaveLength(0);
  });
});
