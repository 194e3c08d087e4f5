import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { CONTRACT_SCHEMAS, ERROR_CODE_INFO, TOOL_METADATA_KEYS } from '@novelrag/contracts';
import { MESSAGE_HINTS, subjectRows } from './bus-api-doc';
import { documentedVariables, envRows } from './configuration-doc';
import { ENV_SOURCES } from './env-sources';
import { API_TYPES_FILE, OPENAPI_FILE, REPO_ROOT, busApiInput, generatedDocs } from './generate';

// The generated documents must match their sources: regenerate with `npm run docs:generate`.

/** Folders whose non-test files are "the source" for the environment scan. */
const SOURCE_ROOTS = ['apps', 'libs', 'tools/scripts', 'bench', 'examples'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', 'json-schema', 'fixtures', '__fixtures__']);
const TEST_FILE = /\.(spec|int\.spec|e2e-spec)\.ts$/;
/** The operating system's own variables. */
/** Node's and the system's own variables, which Node documents (the proxy switch is named where it matters: NOVELRAG_LLM_TRANSPORT). */
const SYSTEM_VARIABLES = new Set(['PATH', 'NODE_OPTIONS', 'NODE_USE_ENV_PROXY']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(full);
    return /\.(ts|mjs|js)$/.test(entry.name) && !TEST_FILE.test(entry.name) ? [full] : [];
  });
}

/** Every variable a source file reads: `process.env.X`, `process.env['X']`, and the same on an `env` object. */
function variablesReadInSource(): Map<string, string> {
  const found = new Map<string, string>();
  const read = /\b(?:process\.env|env)(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g;
  for (const root of SOURCE_ROOTS) {
    for (const file of sourceFiles(path.join(REPO_ROOT, root))) {
      for (const m of readFileSync(file, 'utf8').matchAll(read)) {
        const name = m[1] ?? m[2];
        if (name && !SYSTEM_VARIABLES.has(name) && !found.has(name))
          found.set(name, path.relative(REPO_ROOT, file));
      }
    }
  }
  return found;
}

describe('generated documents', () => {
  let generated: Record<string, string>;
  beforeAll(async () => {
    generated = await generatedDocs();
  });

  it.each([
    'docs/configuration.md',
    'docs/bus-api.md',
    'docs/reference/tool-contract.md',
    OPENAPI_FILE,
    API_TYPES_FILE,
  ])('%s is up to date (run `npm run docs:generate`)', (file) => {
    expect(Object.keys(generated)).toContain(file);
    expect(readFileSync(path.join(REPO_ROOT, file), 'utf8')).toBe(generated[file]);
  });
});

describe('docs/configuration.md', () => {
  it('documents every environment variable the source reads', () => {
    const documented = documentedVariables(ENV_SOURCES);
    const missing = [...variablesReadInSource()].filter(([name]) => !documented.has(name));
    expect(missing.map(([name, file]) => `${name} (read in ${file})`)).toEqual([]);
  });

  it('finds the variables the services read at boot (the scan works)', () => {
    const read = variablesReadInSource();
    for (const name of [
      'NATS_URL',
      'NOVELRAG_API_KEYS',
      'NOVELRAG_TOOL_RUNNERS',
      'NOVELRAG_URL',
      'QDRANT_URL',
    ]) {
      expect(read.has(name)).toBe(true);
    }
  });

  it('describes every variable and gives it a type', () => {
    const rows = ENV_SOURCES.flatMap(envRows);
    expect(rows.length).toBeGreaterThan(40);
    expect(rows.filter((r) => r.description.trim() === '' || r.type === '').map((r) => r.name)).toEqual([]);
  });
});

describe('docs/bus-api.md', () => {
  const rows = subjectRows(busApiInput());

  it('names only existing contracts, for current subjects', () => {
    const hinted = Object.entries(MESSAGE_HINTS);
    expect(hinted.flatMap(([, names]) => names).filter((n) => !(n in CONTRACT_SCHEMAS))).toEqual([]);
    const subjects = new Set(rows.map((r) => r.subject));
    expect(hinted.map(([subject]) => subject).filter((s) => !subjects.has(s))).toEqual([]);
  });

  it('gives every resource request subject its messages and renders every subject builder', () => {
    const resources = rows.filter((r) => r.subject.startsWith('novelrag.resources.'));
    expect(resources.length).toBeGreaterThan(10);
    expect(resources.filter((r) => r.messages.length === 0).map((r) => r.subject)).toEqual([]);
    expect(rows.map((r) => r.subject)).toEqual(
      expect.arrayContaining(['novelrag.goals.<goalId>.cancel', 'novelrag.health.<name>.<instanceId>']),
    );
  });
});

describe('docs/reference/tool-contract.md', () => {
  let text: string;
  beforeAll(async () => {
    text = (await generatedDocs())['docs/reference/tool-contract.md'] ?? '';
  });

  it('gives the status of every error code (no "…") and every metadata key with its presence', () => {
    for (const [code, info] of Object.entries(ERROR_CODE_INFO))
      expect(text).toMatch(new RegExp(`\\| \`${code}\`\\s*\\| ${info.httpStatus}\\s*\\|`));
    for (const key of Object.values(TOOL_METADATA_KEYS))
      expect(text).toMatch(
        new RegExp(`\\| \`${key}\`\\s*\\|[^|]+\\| (required|optional|default \`[^\`]+\`)\\s*\\|`),
      );
    expect(text).not.toContain('…');
  });

  it('names the discovery subjects and the messages a tool exchanges', () => {
    for (const s of [
      '$SRV.PING',
      '$SRV.INFO',
      'novelrag.tools.<tool>.invoke',
      'novelrag.goals.<goalId>.cancel',
      'novelrag.tools.changed',
    ])
      expect(text).toContain(s);
    for (const m of [
      'ToolInvocation',
      'ToolOutput',
      'ErrorEnvelope',
      'CancelRequest',
      'ToolsChanged',
      'MicroInfoResponse',
    ])
      expect(text).toContain(`### [${m}]`);
  });
});
