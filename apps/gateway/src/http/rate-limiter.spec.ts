import { MemoryRateLimiter } from './rate-limiter';

describe('MemoryRateLimiter (the per-instance fallback)', () => {
  afterEach(() => jest.useRealTimers());

  it('counts a window from its first request, refuses past the limit, and starts whole after the window', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-24T10:00:00Z') });
    const limiter = new MemoryRateLimiter({ limit: 2, windowMs: 60_000 });
    expect(await limiter.take('p')).toEqual({ allowed: true, limit: 2, remaining: 1, resetMs: 60_000 });
    jest.setSystemTime(new Date('2026-11-24T10:00:20Z'));
    expect(await limiter.take('p')).toMatchObject({ allowed: true, remaining: 0, resetMs: 40_000 });
    expect(await limiter.take('p')).toMatchObject({ allowed: false, remaining: 0, resetMs: 40_000 });
    expect(await limiter.take('q')).toMatchObject({ allowed: true, remaining: 1 });
    jest.setSystemTime(new Date('2026-11-24T10:01:00Z'));
    expect(await limiter.take('p')).toEqual({ allowed: true, limit: 2, remaining: 1, resetMs: 60_000 });
  });
});
