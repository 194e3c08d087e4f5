import { z } from 'zod';
import { providerSchemaOf, toProviderJsonSchema } from './json-schema';

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

  it('makes optional fields nullable (strict mode requires every field), so the model never has to invent one', () => {
    const schema = z.object({
      goal: z.string(),
      hint: z.string().optional(),
      mood: z.enum(['calm', 'tense']).optional(),
      level: z.string().default('normal'),
      steps: z.array(z.object({ say: z.string(), note: z.string().optional() })),
    });
    const json = toProviderJsonSchema(schema, 'plan');
    expect(json['required']).toEqual(['goal', 'hint', 'mood', 'level', 'steps']);
    const props = json['properties'] as Record<string, Record<string, unknown>>;
    expect(props['goal']).toEqual({ type: 'string' }); // a required field stays as it was
    for (const name of ['hint', 'mood', 'level']) {
      expect(props[name]).toMatchObject({ anyOf: [expect.anything(), { type: 'null' }] });
    }
    const items = (props['steps'] as { items: Record<string, unknown> }).items;
    expect(items['required']).toEqual(['say', 'note']);
    expect((items['properties'] as Record<string, unknown>)['note']).toMatchObject({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });

  it('maps null back to absent for a field that was optional (defaults apply), and keeps null where it is a value', () => {
    const schema = z.object({
      goal: z.string(),
      note: z.string().nullable(),
      hint: z.string().optional(),
      level: z.string().default('normal'),
      steps: z.array(z.object({ say: z.string(), note: z.string().optional() })),
    });
    const { restore } = providerSchemaOf(schema, 'plan');
    const answer = {
      goal: 'g',
      note: null,
      hint: null,
      level: null,
      steps: [
        { say: 'a', note: null },
        { say: 'b', note: 'kept' },
      ],
    };
    const parsed = schema.parse(restore(answer));
    expect(parsed).toEqual({
      goal: 'g',
      note: null,
      level: 'normal',
      steps: [{ say: 'a' }, { say: 'b', note: 'kept' }],
    });
    expect('hint' in parsed).toBe(false);
  });

  it('restores nulls inside a discriminated union branch and through a $ref (a recursive schema)', () => {
    const Leaf = z.object({ kind: z.literal('leaf'), label: z.string().optional() });
    const Pair = z.object({ kind: z.literal('pair'), left: z.string(), right: z.string().optional() });
    const schema = z.object({ node: z.discriminatedUnion('kind', [Leaf, Pair]), again: Leaf.optional() });
    const { restore } = providerSchemaOf(schema, 'tree');
    expect(schema.parse(restore({ node: { kind: 'pair', left: 'l', right: null }, again: null }))).toEqual({
      node: { kind: 'pair', left: 'l' },
    });
    expect(
      schema.parse(restore({ node: { kind: 'leaf', label: null }, again: { kind: 'leaf', label: null } })),
    ).toEqual({ node: { kind: 'leaf' }, again: { kind: 'leaf' } });

    const Part: z.ZodType<{ name: string; parts?: unknown[] }> = z.object({
      name: z.string(),
      get parts() {
        return z.array(Part).optional();
      },
    });
    const outline = z.object({ root: Part });
    const recursive = providerSchemaOf(outline, 'outline');
    expect(JSON.stringify(recursive.schema)).toContain('$ref');
    const answer = { root: { name: 'a', parts: [{ name: 'b', parts: null }] } };
    expect(outline.parse(recursive.restore(answer))).toEqual({ root: { name: 'a', parts: [{ name: 'b' }] } });
  });
});
