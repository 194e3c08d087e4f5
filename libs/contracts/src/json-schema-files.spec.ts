import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { exportJsonSchemas } from './json-schema';

// The committed JSON Schemas (libs/contracts/json-schema, for third parties) must match the zod contracts.
// Regenerate with `npm run schemas:export`.
describe('committed JSON Schemas', () => {
  const dir = path.join(__dirname, '..', 'json-schema');
  const exported = exportJsonSchemas();

  it('exist for every contract and nothing else', () => {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .sort();
    expect(files).toEqual(Object.keys(exported).sort());
  });

  it.each(Object.keys(exported))('%s is up to date (run `npm run schemas:export`)', (name) => {
    const committed: unknown = JSON.parse(readFileSync(path.join(dir, `${name}.json`), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(exported[name as keyof typeof exported])));
  });
});
