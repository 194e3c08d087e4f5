type Schema = Readonly<Record<string, unknown>>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function sampleNumber(schema: Schema, integer: boolean): number {
  const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : undefined;
  const exclusive = typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] : undefined;
  const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : undefined;
  let n = min ?? (exclusive !== undefined ? exclusive + (integer ? 1 : 0.5) : 1);
  if (max !== undefined && n > max) n = max;
  return integer ? Math.ceil(n) : n;
}

/**
 * A value that satisfies the simple parts of a JSON Schema (type, enum/const, required properties, minimum,
 * minLength, minItems): enough to call a tool once. Formats and patterns are not honoured (use `--params`).
 */
export function sampleValue(schema: unknown): unknown {
  if (!isSchema(schema)) return {};
  if (schema['const'] !== undefined) return schema['const'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
  if (schema['default'] !== undefined) return schema['default'];
  const variants = (schema['oneOf'] ?? schema['anyOf']) as unknown;
  if (Array.isArray(variants) && variants.length > 0) return sampleValue(variants[0]);
  const type = Array.isArray(schema['type']) ? (schema['type'][0] as unknown) : schema['type'];
  switch (type) {
    case 'string':
      return 'x'.repeat(Math.max(1, Number(schema['minLength'] ?? 1)));
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: Number(schema['minItems'] ?? 0) }, () => sampleValue(schema['items']));
    default:
      return sampleObject(schema);
  }
}

function sampleObject(schema: Schema): Record<string, unknown> {
  const properties = isSchema(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
  return Object.fromEntries(required.map((key) => [key, sampleValue(properties[key])]));
}

/** The wrong-typed stand-in for a property of this type. */
function wrongValue(type: unknown): unknown {
  return type === 'string' ? 12345 : 'not-a-' + String(type);
}

/**
 * Parameters the schema refuses, with what is wrong with them, or undefined when the schema accepts anything the
 * checker could build (no required property, no typed property, additional properties allowed).
 */
export function invalidParams(schema: Schema): { params: Record<string, unknown>; why: string } | undefined {
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
  if (required.length > 0) return { params: {}, why: `required ${required.join(', ')} left out` };
  const properties = isSchema(schema['properties']) ? schema['properties'] : {};
  for (const [key, prop] of Object.entries(properties)) {
    if (isSchema(prop) && typeof prop['type'] === 'string') {
      return { params: { [key]: wrongValue(prop['type']) }, why: `${key} given the wrong type` };
    }
  }
  if (schema['additionalProperties'] === false)
    return { params: { checkerUnknownProperty: 1 }, why: 'an unknown property' };
  return undefined;
}
