import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { CONTRACT_SCHEMAS, type ContractName, describeIssues } from './index';

// Fixtures are read-only examples of every main message (also documentation for third parties). Valid ones are plain
// messages; invalid ones wrap the message with the path the error must name.
const FIXTURES = path.join(__dirname, '..', 'fixtures');

interface InvalidFixture {
  readonly description: string;
  readonly expectedPath: string;
  readonly message: unknown;
}

function fixtureFiles(kind: 'valid' | 'invalid'): Array<[string, string, string]> {
  const dir = path.join(FIXTURES, kind);
  return readdirSync(dir).flatMap((schema) =>
    readdirSync(path.join(dir, schema))
      .filter((f) => f.endsWith('.json'))
      .map((f): [string, string, string] => [schema, f, path.join(dir, schema, f)]),
  );
}

function schemaFor(name: string): z.ZodType {
  if (!(name in CONTRACT_SCHEMAS))
    throw new Error(`fixture folder ${name} names no entry of CONTRACT_SCHEMAS`);
  return CONTRACT_SCHEMAS[name as ContractName];
}

const valid = fixtureFiles('valid');
const invalid = fixtureFiles('invalid');

describe('contract fixtures', () => {
  it('cover every main message with at least 2 valid and 2 invalid examples', () => {
    const main = [
      'GoalSubmission',
      'GoalRecord',
      'ToolInvocation',
      'ToolOutput',
      'RuntimeEvent',
      'InteractionAnswer',
      'TraceEvent',
      'SearchRequest',
      'SegmentsRequest',
      'ApplyRequest',
      'ResourceOperation',
      'ErrorEnvelope',
      'ToolMetadata',
    ];
    for (const name of main) {
      expect({ name, valid: valid.filter(([s]) => s === name).length >= 2 }).toEqual({ name, valid: true });
      expect({ name, invalid: invalid.filter(([s]) => s === name).length >= 2 }).toEqual({
        name,
        invalid: true,
      });
    }
  });

  it('include Chinese content', () => {
    const all = [...valid, ...invalid].map(([, , file]) => readFileSync(file, 'utf8')).join('\n');
    expect(all).toContain('余归');
  });

  it('include several trace kinds', () => {
    const kinds = new Set(
      valid
        .filter(([s]) => s === 'TraceEvent')
        .map(([, , file]) => (JSON.parse(readFileSync(file, 'utf8')) as { kind: string }).kind),
    );
    expect(kinds.size).toBeGreaterThanOrEqual(8);
  });

  it.each(valid)('%s/%s parses', (schema, _file, file) => {
    const message: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const result = schemaFor(schema).safeParse(message);
    if (!result.success) throw new Error(describeIssues(result.error));
    expect(result.success).toBe(true);
  });

  it.each(invalid)('%s/%s is rejected, naming the offending path', (schema, _file, file) => {
    const fixture = JSON.parse(readFileSync(file, 'utf8')) as InvalidFixture;
    expect(typeof fixture.description).toBe('string');
    const result = schemaFor(schema).safeParse(fixture.message);
    expect(result.success).toBe(false);
    if (result.success) return;
    const message = describeIssues(result.error);
    const label = fixture.expectedPath === '' ? '(root)' : fixture.expectedPath;
    const named = message.split('; ').some((part) => part.startsWith(`${label}: `));
    if (!named) throw new Error(`expected the error to name "${label}", got: ${message}`);
  });
});
