import { sqlIn, sqlString } from './sql';

describe('sqlString', () => {
  it('wraps in single quotes and doubles embedded quotes', () => {
    expect(sqlString('plain')).toBe("'plain'");
    expect(sqlString("it's")).toBe("'it''s'");
    expect(sqlString("x' OR '1'='1")).toBe("'x'' OR ''1''=''1'");
    expect(sqlString("''")).toBe("''''''");
  });

  it('keeps backslashes, percent signs, double quotes and CJK as they are', () => {
    expect(sqlString('a\\b %_ "q" 余归')).toBe(`'a\\b %_ "q" 余归'`);
    expect(sqlString('')).toBe("''");
  });

  it('refuses a NUL character', () => {
    expect(() => sqlString('a\u0000b')).toThrow(RangeError);
  });
});

describe('sqlIn', () => {
  it('builds an IN list of escaped literals', () => {
    expect(sqlIn('uri', ['/a', "/b'c"])).toBe("uri IN ('/a', '/b''c')");
  });

  it('matches nothing for an empty list', () => {
    expect(sqlIn('uri', [])).toBe('false');
  });
});
