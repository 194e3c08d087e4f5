import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface Policy {
  initialDelayMs: number;
  maxDelayMs: number;
  limit: number;
  windowMs: number;
}
type Decision =
  { restart: true; attempt: number; delayMs: number; crashes: number } | { restart: false; crashes: number };
interface SuperviseModule {
  RESTART_POLICY: Policy;
  backoffDelay(attempt: number, policy?: Policy): number;
  nextRestart(crashTimes: number[], now: number, policy?: Policy): Decision;
  RestartBook: new (policy?: Policy, now?: () => number) => { crashed(name: string): Decision };
}

// The launcher's restart policy (tools/scripts/supervise.mjs, an ES module of the launcher, loaded as it runs).
let m: SuperviseModule;
beforeAll(async () => {
  m = (await import(pathToFileURL(path.join(__dirname, 'supervise.mjs')).href)) as SuperviseModule;
});

describe('launcher restart policy', () => {
  it('backs off exponentially from 1 s, capped', () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => m.backoffDelay(a))).toEqual([1000, 2000, 4000, 8000, 16000, 30000]);
    expect(m.backoffDelay(40)).toBe(30000);
    expect(() => m.backoffDelay(0)).toThrow(RangeError);
  });

  it('restarts five times within 60 s and gives up on the sixth crash', () => {
    let now = 0;
    const book = new m.RestartBook(m.RESTART_POLICY, () => now);
    const decisions = [];
    for (let i = 0; i < 6; i++) {
      decisions.push(book.crashed('tool-runner-1'));
      now += 5_000;
    }
    expect(decisions.map((d) => (d.restart ? d.delayMs : 'give up'))).toEqual([
      1000,
      2000,
      4000,
      8000,
      16000,
      'give up',
    ]);
    // Another service has its own count.
    expect(book.crashed('gateway')).toEqual({ restart: true, attempt: 1, delayMs: 1000, crashes: 1 });
  });

  it('forgets crashes older than the window: a service that ran quietly starts again at the shortest delay', () => {
    let now = 0;
    const book = new m.RestartBook(m.RESTART_POLICY, () => now);
    for (let i = 0; i < 5; i++) book.crashed('orchestrator');
    now = 60_000;
    expect(book.crashed('orchestrator')).toEqual({ restart: true, attempt: 1, delayMs: 1000, crashes: 1 });
  });

  it('counts only the crashes inside the window', () => {
    const times = [0, 10_000, 59_000, 70_000, 71_000];
    // 0 and 10 000 are more than 60 s before 71 000.
    expect(m.nextRestart(times, 71_000)).toEqual({ restart: true, attempt: 3, delayMs: 4000, crashes: 3 });
    const loop = { initialDelayMs: 10, maxDelayMs: 100, limit: 2, windowMs: 1_000 };
    expect(m.nextRestart([0, 1, 2], 3, loop)).toEqual({ restart: false, crashes: 3 });
  });
});
