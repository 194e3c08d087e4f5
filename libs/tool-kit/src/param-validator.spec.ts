import { compileParamValidator } from './param-validator';

const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

describe('compileParamValidator (JSON Schema draft 2020-12, as tools declare it)', () => {
  it('rejects properties left unevaluated when the schema says unevaluatedProperties: false', () => {
    const validate = compileParamValidator('t', {
      $schema: DRAFT_2020,
      type: 'object',
      properties: { a: { type: 'string' } },
      allOf: [{ properties: { b: { type: 'number' } } }],
      unevaluatedProperties: false,
    });
    expect(validate({ a: 'x', b: 1 })).toBeNull();
    const refused = validate({ a: 'x', b: 1, sneaky: true });
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
    expect(refused?.message).toContain('sneaky');
  });

  it('enforces dependentRequired', () => {
    const validate = compileParamValidator('t', {
      $schema: DRAFT_2020,
      type: 'object',
      properties: { card: { type: 'string' }, billing: { type: 'string' } },
      dependentRequired: { card: ['billing'] },
    });
    expect(validate({ card: '1', billing: 'home' })).toBeNull();
    expect(validate({})).toBeNull();
    const refused = validate({ card: '1' });
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(refused?.message).toContain('billing');
  });

  it('accepts a valid tuple declared with prefixItems and items: false, and refuses an extra item', () => {
    const validate = compileParamValidator('t', {
      $schema: DRAFT_2020,
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
      },
    });
    expect(validate({ pair: ['a', 1] })).toBeNull();
    expect(validate({ pair: ['a', 1, 'extra'] })).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(validate({ pair: [1, 'a'] })).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('names each offending field (nested path, missing and additional properties)', () => {
    const validate = compileParamValidator('t', {
      type: 'object',
      properties: {
        text: { type: 'string' },
        nested: { type: 'object', properties: { n: { type: 'integer' } } },
      },
      required: ['text'],
      additionalProperties: false,
    });
    const refused = validate({ nested: { n: 'x' }, extra: 1 });
    const fields = (refused?.details as { fields: { field: string }[] }).fields.map((f) => f.field).sort();
    expect(fields).toEqual(['extra', 'nested.n', 'text']);
  });

  it('still loads draft-07 schemas (tools exported by zod target draft-7)', () => {
    const validate = compileParamValidator('t', {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    });
    expect(validate({ a: 'x' })).toBeNull();
    expect(validate({})).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('throws at compile time for a schema that is not valid', () => {
    expect(() =>
      compileParamValidator('t', { type: 'object', properties: { a: { type: 'nope' } } }),
    ).toThrow();
  });
});
