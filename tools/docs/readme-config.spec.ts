import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GatewayEnv } from '../../apps/gateway/src/config';
import { OrchestratorEnv } from '../../apps/orchestrator/src/config';
import { ResourceServiceEnv } from '../../apps/resource-service/src/config';
import { ToolRunnerEnv } from '../../apps/tool-runner/src/config';

const README = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');

/** The variables named in the first column of the README's configuration table. */
function documented(): Set<string> {
  const section = README.slice(README.indexOf('## Configuration'));
  const table = section.slice(0, section.indexOf('\n## '));
  const names = new Set<string>();
  for (const line of table.split('\n')) {
    const first = line.split('|')[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]!);
  }
  return names;
}

function keysOf(schema: unknown): string[] {
  // The env schemas are zod objects, some wrapped in a refinement (`.superRefine`): find the object's shape.
  let s = schema as { shape?: Record<string, unknown>; def?: { in?: unknown; schema?: unknown } };
  for (let i = 0; i < 5 && !s.shape; i++) s = (s.def?.in ?? s.def?.schema) as typeof s;
  if (!s?.shape) throw new Error('not a zod object schema');
  return Object.keys(s.shape);
}

describe('README configuration table', () => {
  it.each([
    ['gateway', GatewayEnv],
    ['orchestrator', OrchestratorEnv],
    ['resource-service', ResourceServiceEnv],
    ['tool-runner', ToolRunnerEnv],
  ])('documents every environment variable the %s reads', (_service, schema) => {
    const table = documented();
    expect(keysOf(schema).filter((name) => !table.has(name))).toEqual([]);
  });
});
