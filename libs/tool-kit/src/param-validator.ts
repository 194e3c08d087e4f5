import Ajv07, { type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { type ErrorEnvelope, errorEnvelope } from '@novelrag/contracts';

type Validate = (params: unknown) => ErrorEnvelope | null;

/** `/a/b/0` (a JSON pointer) → `a.b[0]`. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, token) => (/^\d+$/.test(token) ? `${path}[${token}]` : path === '' ? token : `${path}.${token}`),
      '',
    );
}

/** The property an issue is about, when the keyword names one (missing, additional, unevaluated). */
const NAMED_PROPERTY: Readonly<Record<string, string>> = {
  required: 'missingProperty',
  dependentRequired: 'missingProperty',
  additionalProperties: 'additionalProperty',
  unevaluatedProperties: 'unevaluatedProperty',
};

function fieldOf(issue: ErrorObject): string {
  let path = pathOf(issue.instancePath);
  const key = NAMED_PROPERTY[issue.keyword];
  const named = key === undefined ? undefined : (issue.params as Record<string, unknown>)[key];
  if (typeof named === 'string') path = path === '' ? named : `${path}.${named}`;
  return path === '' ? '(params)' : path;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;

/**
 * The validator for a schema's dialect: draft-06/07 when `$schema` names it, JSON Schema 2020-12 otherwise (the
 * dialect tools declare; `unevaluatedProperties`, `dependentRequired`, `prefixItems` have their 2020 meaning).
 * Not strict: keywords unknown to the dialect (titles, vendor extensions) are annotations, as the spec says.
 */
function compile(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  const { $schema, ...rest } = schema;
  const options: Options = { allErrors: true, strict: false, logger: false };
  const ajv =
    typeof $schema === 'string' && DRAFT_07.test($schema) ? new Ajv07(options) : new Ajv2020(options);
  addFormats(ajv);
  return ajv.compile(rest);
}

/**
 * Compiles a tool's JSON Schema once. The validator returns null for valid params, else a VALIDATION_FAILED envelope
 * whose message names each offending field and whose details list them.
 * @throws Error when the schema itself does not compile (a tool definition bug, caught at registration).
 */
export function compileParamValidator(toolName: string, schema: Readonly<Record<string, unknown>>): Validate {
  const validate = compile(schema);
  return (params) => {
    if (validate(params)) return null;
    const issues = (validate.errors ?? []).slice(0, 10);
    const described = issues.map((i) => ({ field: fieldOf(i), message: i.message ?? i.keyword }));
    return errorEnvelope(
      'VALIDATION_FAILED',
      `invalid parameters for ${toolName}: ${described.map((d) => `${d.field}: ${d.message}`).join('; ')}`,
      { fields: described },
    );
  };
}
