import { z } from 'zod';
import type { EnvSource } from './env-sources';
import { code, generatedBanner, table } from './markdown';

export interface EnvRow {
  readonly name: string;
  readonly readBy: string;
  readonly type: string;
  readonly defaultValue: string;
  readonly description: string;
}

type Json = Record<string, unknown>;

/** The schema that says what a variable accepts: wrappers, defaults and transforms peeled off. */
function valueSchema(schema: z.ZodType): z.ZodType | undefined {
  const def = schema.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType };
  switch (def.type) {
    case 'default':
    case 'prefault':
    case 'optional':
    case 'nullable':
    case 'readonly':
      return def.innerType && valueSchema(def.innerType);
    case 'pipe':
      return (def.out && valueSchema(def.out)) ?? (def.in && valueSchema(def.in));
    case 'transform':
      return undefined;
    default:
      return schema;
  }
}

function integerType(json: Json): string {
  const min = typeof json['minimum'] === 'number' ? json['minimum'] : undefined;
  const max =
    typeof json['maximum'] === 'number' && json['maximum'] < Number.MAX_SAFE_INTEGER
      ? json['maximum']
      : undefined;
  if (json['exclusiveMinimum'] === 0 && max === undefined) return 'positive integer';
  if (min !== undefined && max !== undefined) return `integer ${min}–${max}`;
  if (min !== undefined) return `integer ≥ ${min}`;
  return 'integer';
}

/** A short, human type: `integer 1–64`, `URL`, `` `a`, `b` ``, `string`. */
export function typeOf(schema: z.ZodType): string {
  const value = valueSchema(schema);
  if (!value) return 'string';
  const json = z.toJSONSchema(value, { io: 'input', unrepresentable: 'any' }) as Json;
  if (Array.isArray(json['enum'])) return json['enum'].map((v) => code(String(v))).join(', ');
  if (json['type'] === 'integer' || json['type'] === 'number') return integerType(json);
  if (json['format'] === 'uri') return 'URL';
  return 'string';
}

/** The value the schema gives an unset variable, as the document shows it. */
export function defaultOf(schema: z.ZodType): string {
  const parsed = schema.safeParse(undefined);
  if (!parsed.success) return '(required)';
  const value: unknown = parsed.data;
  if (value === undefined) return '—';
  if (Array.isArray(value) && value.length === 0) return '—';
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return '—';
  return code(typeof value === 'string' ? value : JSON.stringify(value));
}

/** The variables a source documents itself (those of its `includes` have their own section). */
export function envRows(source: EnvSource): EnvRow[] {
  const included = new Set((source.includes ?? []).flatMap((s) => Object.keys(s.shape)));
  return Object.entries(source.schema.shape as Record<string, z.ZodType>)
    .filter(([name]) => !included.has(name))
    .map(([name, schema]) => ({
      name,
      readBy: source.readBy,
      type: typeOf(schema),
      defaultValue: defaultOf(schema),
      description: schema.description ?? '',
    }));
}

const INTRO = `# Configuration

Every service reads its environment once at boot and validates it with a zod schema: a bad value stops the service
before it connects, with a message naming each bad variable and why. Unset and empty mean the same for the model
variables. \`npm start\` passes its environment on to every service it starts.

The tables below are generated from those schemas (each variable's \`.describe()\` text); the launcher, CLI, test and
benchmark variables, which those programs read directly, come from documentation-only schemas next to the
generator. A test fails when a variable read anywhere in the source is missing here.`;

/** docs/configuration.md, from the env schemas. */
export function renderConfiguration(sources: readonly EnvSource[]): string {
  const sections = sources.map((source) => {
    const rows = envRows(source).map((r) => [code(r.name), r.readBy, r.type, r.defaultValue, r.description]);
    return [
      `## ${source.title}`,
      `Read by ${source.readBy}; defined in ${definedIn(source.definedIn)}. ${source.intro}`,
      table(['variable', 'service(s)', 'type', 'default', 'description'], rows),
    ].join('\n\n');
  });
  return [generatedBanner('the zod env schemas'), INTRO, ...sections].join('\n\n') + '\n';
}

function definedIn(text: string): string {
  const [file = '', ...rest] = text.split(' ');
  return [`[${code(file)}](../${file})`, ...rest].join(' ');
}

/** Every variable the document names. */
export function documentedVariables(sources: readonly EnvSource[]): Set<string> {
  return new Set(sources.flatMap((s) => envRows(s).map((r) => r.name)));
}
