import { z } from 'zod';

type JsonSchema = Parameters<typeof z.fromJSONSchema>[0];

/** Validators by schema object (tools keep their schema for life); null when a schema cannot be converted. */
const validators = new WeakMap<object, z.ZodType | null>();

function validatorOf(schema: Readonly<Record<string, unknown>>): z.ZodType | null {
  if (!validators.has(schema)) {
    let validator: z.ZodType | null = null;
    try {
      validator = Object.keys(schema).length === 0 ? null : z.fromJSONSchema(schema as JsonSchema);
    } catch {
      validator = null; // a schema zod cannot read: the tool validates its own input
    }
    validators.set(schema, validator);
  }
  return validators.get(schema) ?? null;
}

/**
 * Why `params` do not match a tool's JSON input schema (first issues, by path), or undefined when they do or when the
 * schema cannot be checked here. Messages name fields, never echo values.
 */
export function paramProblem(
  schema: Readonly<Record<string, unknown>>,
  params: Readonly<Record<string, unknown>>,
): string | undefined {
  const parsed = validatorOf(schema)?.safeParse(params);
  if (!parsed || parsed.success) return undefined;
  const issues = parsed.error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
  return issues.join('; ');
}
