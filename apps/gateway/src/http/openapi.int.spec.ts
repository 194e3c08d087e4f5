import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startService, type RunningService } from '@novelrag/bus';
import { MAX_REQUEST_CHARS, TRACE_KINDS } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import { gatewayDefinition } from '../service.definition';

const ROOT = path.resolve(__dirname, '../../../..');

interface Operation {
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  security?: unknown[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { oneOf?: unknown[]; anyOf?: unknown[] }> };
}

/** Runs the OpenAPI linter (Redocly CLI, rules in redocly.yaml) on a file; its JSON report. */
interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}
interface LintReport {
  totals: { errors: number; warnings: number };
  problems: LintProblem[];
}

function lint(file: string): LintReport {
  const r = spawnSync(
    path.join(ROOT, 'node_modules/.bin/redocly'),
    ['lint', file, '--format=json', '--config', path.join(ROOT, 'redocly.yaml')],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 120_000,
    },
  );
  const json = r.stdout.slice(r.stdout.indexOf('{'));
  if (!json) throw new Error(`redocly lint printed no report (exit ${r.status}):\n${r.stderr}`);
  return JSON.parse(json) as LintReport;
}

// The published OpenAPI document: every operation's reply typed from the contracts (SSE included), and the linter's
// recommended rules pass with no errors.
describe('OpenAPI document', () => {
  let nats: NatsServerHandle;
  let gateway: RunningService<object>;
  let doc: Document;
  let dir: string;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    gateway = await startService(gatewayDefinition, {
      NATS_URL: nats.url,
      PORT: '0',
      NOVELRAG_AUTH_DISABLED: 'true',
      NOVELRAG_LOG_LEVEL: 'silent',
    });
    doc = (await (await fetch(`${gateway.url!}/docs/openapi.json`)).json()) as Document;
    dir = await mkdtemp(path.join(tmpdir(), 'novelrag-openapi-'));
  });

  afterAll(async () => {
    await gateway?.close();
    await nats?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('types the 2xx reply of every operation, SSE routes as text/event-stream of TraceEvent', () => {
    const untyped: string[] = [];
    for (const [route, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        const ok = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
        if (ok.length === 0 || ok.some(([, r]) => !Object.values(r.content ?? {}).some((m) => m.schema)))
          untyped.push(`${method.toUpperCase()} ${route}`);
      }
    expect(untyped).toEqual([]);
    for (const route of ['/v1/events', '/v1/goals/{id}/events'])
      expect(doc.paths[route]!['get']!.responses['200']!.content).toEqual({
        'text/event-stream': { schema: { $ref: '#/components/schemas/TraceEvent' } },
      });
    const union = doc.components.schemas['TraceEvent']!;
    expect((union.oneOf ?? union.anyOf ?? []).length).toBe(TRACE_KINDS.length);
  });

  it('documents request bodies and query strings from the zod schemas the gateway validates with', () => {
    const submit = doc.paths['/v1/goals']!['post']!.requestBody!.content['application/json']!.schema;
    expect(submit).toMatchObject({
      additionalProperties: false,
      properties: {
        request: { maxLength: MAX_REQUEST_CHARS },
        agent: { enum: ['novelrag', 'assistant', 'rag'] },
      },
    });
    const limit = doc.paths['/v1/goals']!['get']!.parameters!.find((p) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } });
    expect(Object.keys(doc.components.schemas).filter((name) => name.startsWith('__'))).toEqual([]);
  });

  it('is the document committed as docs/reference/openapi.json (`npm run docs:generate`)', async () => {
    const committed: unknown = JSON.parse(
      await readFile(path.join(ROOT, 'docs/reference/openapi.json'), 'utf8'),
    );
    expect(doc).toEqual(committed);
  });

  it('passes the OpenAPI linter with no errors', async () => {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc, null, 2));
    const report = lint(file);
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 180_000);
});
