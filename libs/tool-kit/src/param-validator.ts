import Ajv from 'ajv';
import { type ErrorEnvelope, errorEnvelope } from '@novelrag/contracts';

type Validate = (params: unknown) => ErrorEnvelope | null;

interface AjvIssue {
  readonly keyword: string;
  readonly dataPath: string;
  readonly message?: string;
  readonly params: Record<string, unknown>;
}

/** `.a.b[0]` / `['a']` (ajv 6 data paths) → `a.b[0]`; a missing required property is named by its own path. */
function fieldOf(issue: AjvIssue): string {
  let path = issue.dataPath.replace(/\['([^']*)'\]/g, '.$1').replace(/^\./, '');
  if (issue.keyword === 'required' && typeof issue.params['missingProperty'] === 'string') {
    const missing = String(issue.params['missingProperty']).replace(/^\./, '');
    path = path === '' ? missing : `${path}.${missing}`;
  }
  if (issue.keyword === 'additionalProperties' && typeof issue.params['additionalProperty'] === 'string') {
    const extra = issue.params['additionalProperty'];
    path = path === '' ? extra : `${path}.${extra}`;
  }
  return path === '' ? '(params)' : path;
}

/**
 * Compiles a tool's JSON Schema once (draft-07 semantics; a `$schema` key is ignored so schemas exported for newer
 * drafts still load). The validator returns null for valid params, else a VALIDATION_FAILED envelope whose message
 * names each offending field and whose details list them.
 * @throws Error when the schema itself does not compile (a tool definition bug, caught at registration).
 */
export function compileParamValidator(toolName: string, schema: Readonly<Record<string, unknown>>): Validate {
  const { $schema: _ignored, ...rest } = schema;
  const ajv = new Ajv({ allErrors: true, jsonPointers: false });
  const validate = ajv.compile(rest);
  return (params) => {
    if (validate(params)) return null;
    const issues = ((validate.errors ?? []) as unknown as AjvIssue[]).slice(0, 10);
    const described = issues.map((i) => ({ field: fieldOf(i), message: i.message ?? i.keyword }));
    return errorEnvelope(
      'VALIDATION_FAILED',
      `invalid parameters for ${toolName}: ${described.map((d) => `${d.field}: ${d.message}`).join('; ')}`,
      { fields: described },
    );
  };
}
