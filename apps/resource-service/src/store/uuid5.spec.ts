import { DNS_NAMESPACE, pointIdOf, RESOURCE_URI_NAMESPACE, uuidV5 } from './uuid5';

describe('uuidV5', () => {
  it('matches the RFC 4122 / Python uuid5 test vector', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
    expect(uuidV5('python.org', DNS_NAMESPACE)).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('hashes UTF-8 names (CJK) like Python does', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_URL, '/character/余归')
    expect(uuidV5('/character/余归', '6ba7b811-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '684a6c90-8575-592a-bb80-c9790eaf77f3',
    );
  });

  it('derives the fixed resource namespace and point ids from it', () => {
    expect(uuidV5('https://novelrag.dev/resource-uri', '6ba7b811-9dad-11d1-80b4-00c04fd430c8')).toBe(
      RESOURCE_URI_NAMESPACE,
    );
    expect(pointIdOf('/character/余归')).toBe('3ab526c5-347d-55cc-8ff5-d603adc3a9e4');
    expect(pointIdOf('/a')).not.toBe(pointIdOf('/b'));
    expect(pointIdOf('/a')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('rejects a malformed namespace', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(RangeError);
  });
});
