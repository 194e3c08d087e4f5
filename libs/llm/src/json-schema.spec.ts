import { z } from 'zod';
import { toProviderJsonSchema } from './json-schema';

describe('toProviderJsonSchema', () => {
  it('closes every object and requires every property, including nested ones and a field named "properties"', () => {
    const schema = z.object({
      goal: z.string(),
      note: z.string().nullable(),
      tags: z.array(z.object({ key: z.string(), value: z.string() })),
      properties: z.object({ a: z.number() }),
      level: z.string().default('normal'),
    });
    const json = toProviderJsonSchema(schema, 'plan');
    expect(json['$schema']).toBeUndefined();
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['goal', 'note', 'tags', 'properties', 'level'],
      properties: {
        note: { type: ['string', 'null'] }, // the nullable form OpenAI's strict mode documents
        tags: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: ['key', 'value'] },
        },
        properties: { type: 'object', additionalProperties: false, required: ['a'] },
      },
    });
    const props = json['properties'] as Record<string, unknown>;
    expect(Object.keys(props)).toEqual(['goal', 'note', 'tags', 'properties', 'level']);
  });

  it('rejects a non-object root and unrepresentable schemas with ConfigError', () => {
    expect(() => toProviderJsonSchema(z.array(z.string()), 'list')).toThrow(/object at its root/);
    expect(() => toProviderJsonSchema(z.object({ at: z.date() }), 'dated')).toThrow(/cannot be expressed/);
  });
});
