import { CONTRACT_SCHEMAS, exportJsonSchemas } from './index';

describe('exportJsonSchemas', () => {
  const schemas = exportJsonSchemas();

  it('exports every contract', () => {
    expect(Object.keys(schemas).sort()).toEqual(Object.keys(CONTRACT_SCHEMAS).sort());
  });

  it.each(Object.keys(CONTRACT_SCHEMAS))('%s is an object schema or a union', (name) => {
    const schema = schemas[name as keyof typeof schemas];
    const shape =
      schema['type'] === 'object' || Array.isArray(schema['anyOf']) || Array.isArray(schema['oneOf']);
    expect(shape).toBe(true);
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['title']).toBe(name);
    expect(() => JSON.stringify(schema)).not.toThrow();
  });

  it('exports recursive elements with references', () => {
    expect(JSON.stringify(schemas.ResourceElement)).toContain('"$ref"');
  });

  it('keeps strictness and the fixed error codes', () => {
    const req = schemas.SearchRequest as { additionalProperties?: unknown; required?: string[] };
    expect(req.additionalProperties).toBe(false);
    expect(req.required).toEqual(['query']);
    expect(JSON.stringify(schemas.ErrorEnvelope)).toContain('INTERACTION_NOT_PENDING');
  });
});
