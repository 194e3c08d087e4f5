import { GoalId, JsonValue, Lang, ResourceUri, Timestamp, isResourceUri } from './index';

describe('ResourceUri', () => {
  it.each([
    '/',
    '/character',
    '/character/余归',
    '/location/europe/london/baker_street',
    '/outline/chapter_1.5',
    '/a-b/c_d',
  ])('accepts %s', (uri) => expect(isResourceUri(uri)).toBe(true));
  it.each([
    '',
    'character',
    '//',
    '/character/',
    '/a//b',
    '/a/../b',
    '/a/.',
    '/a b',
    '/a/b*',
    'x'.repeat(10),
  ])('rejects %p', (uri) => expect(isResourceUri(uri)).toBe(false));
  it('caps the length', () => {
    expect(ResourceUri.safeParse('/' + 'a'.repeat(1100)).success).toBe(false);
  });
});

describe('ids, languages, timestamps, JSON', () => {
  it('ids are safe subject tokens', () => {
    expect(GoalId.safeParse('g-01HZX3K9_a').success).toBe(true);
    for (const bad of ['', 'a.b', 'a b', '余归', 'a*', 'x'.repeat(129)])
      expect(GoalId.safeParse(bad).success).toBe(false);
  });

  it('languages are BCP-47-like', () => {
    for (const ok of ['en', 'zh', 'zh-Hans', 'pt-BR']) expect(Lang.safeParse(ok).success).toBe(true);
    for (const bad of ['', 'english', 'zh_CN', '中文']) expect(Lang.safeParse(bad).success).toBe(false);
  });

  it('timestamps are ISO-8601 with a zone', () => {
    expect(Timestamp.safeParse('2026-03-01T08:00:00.000Z').success).toBe(true);
    expect(Timestamp.safeParse('2026-03-01T08:00:00+08:00').success).toBe(true);
    expect(Timestamp.safeParse('2026-03-01 08:00').success).toBe(false);
  });

  it('JSON values are recursive and exclude non-JSON', () => {
    expect(JsonValue.safeParse({ a: [1, 'x', null, { b: true }] }).success).toBe(true);
    expect(JsonValue.safeParse({ a: undefined }).success).toBe(false);
    expect(JsonValue.safeParse(() => 1).success).toBe(false);
  });
});
