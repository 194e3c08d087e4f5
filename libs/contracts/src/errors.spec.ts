import { z } from 'zod';
import {
  ERROR_CODE_INFO,
  ErrorCode,
  describeIssues,
  errorEnvelope,
  errorReply,
  isErrorEnvelope,
  okReply,
  replyOf,
} from './index';

describe('error codes', () => {
  it('has info for exactly the fixed codes', () => {
    expect(Object.keys(ERROR_CODE_INFO).sort()).toEqual([...ErrorCode.options].sort());
    expect(ErrorCode.options).toHaveLength(21);
    for (const info of Object.values(ERROR_CODE_INFO)) {
      expect(info.httpStatus).toBeGreaterThanOrEqual(400);
      expect(info.httpStatus).toBeLessThan(600);
      expect(info.meaning.length).toBeGreaterThan(0);
    }
  });

  it('marks transient failures retryable', () => {
    expect(ERROR_CODE_INFO.TIMEOUT.retryable).toBe(true);
    expect(ERROR_CODE_INFO.UNAVAILABLE.retryable).toBe(true);
    expect(ERROR_CODE_INFO.VALIDATION_FAILED.retryable).toBe(false);
    expect(ERROR_CODE_INFO.NOT_FOUND.httpStatus).toBe(404);
  });
});

describe('errorEnvelope', () => {
  it('uses the default retryable flag and keeps details', () => {
    expect(errorEnvelope('RATE_LIMITED', 'slow down')).toEqual({
      code: 'RATE_LIMITED',
      message: 'slow down',
      retryable: true,
    });
    const env = errorEnvelope('NOT_FOUND', '余归 not found', { uri: '/character/余归' });
    expect(env).toEqual({
      code: 'NOT_FOUND',
      message: '余归 not found',
      retryable: false,
      details: { uri: '/character/余归' },
    });
    expect(isErrorEnvelope(env)).toBe(true);
    expect(isErrorEnvelope({ code: 'NOPE', message: 'x', retryable: false })).toBe(false);
    expect(isErrorEnvelope(new Error('x'))).toBe(false);
  });
});

describe('replyOf', () => {
  const Reply = replyOf(z.object({ n: z.number() }));

  it('parses both arms', () => {
    expect(Reply.parse(okReply({ n: 1 }))).toEqual({ ok: true, data: { n: 1 } });
    const failed = errorReply(errorEnvelope('CONFLICT', 'stale'));
    expect(Reply.parse(failed)).toEqual(failed);
  });

  it('rejects bad data and bad errors, naming the path', () => {
    const badData = Reply.safeParse({ ok: true, data: { n: 'x' } });
    expect(badData.success || describeIssues(badData.error)).toMatch(/^data\.n: /);
    const badError = Reply.safeParse({ ok: false, error: { code: 'X', message: 'm', retryable: true } });
    expect(badError.success || describeIssues(badError.error)).toMatch(/^error\.code: /);
    const noOk = Reply.safeParse({ data: { n: 1 } });
    expect(noOk.success || describeIssues(noOk.error)).toMatch(/^ok: /);
  });
});

describe('describeIssues', () => {
  it('names unknown keys and array indexes', () => {
    const S = z.strictObject({ items: z.array(z.strictObject({ id: z.string() })) });
    const r = S.safeParse({ items: [{ id: 'a' }, { id: 1, extra: true }] });
    expect(r.success).toBe(false);
    if (!r.success)
      expect(describeIssues(r.error)).toBe(
        'items[1].id: Invalid input: expected string, received number; items[1].extra: unknown key',
      );
  });
});
