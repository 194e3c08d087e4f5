#!/usr/bin/env node
// `npm run admit-tool -- --service <suffix> --tool <Name> [--tool <Name>...]`: prints a new third-party tool's
// credentials (an nkey seed), its deploy/nats/nats.conf stanza and the NOVELRAG_TOOL_OWNERS entry (docs/security.md).
// The current NOVELRAG_TOOL_OWNERS of the environment is extended, so admissions accumulate.
import { parseArgs } from 'node:util';
import { ensureEnv } from './ensure-env.mjs';
import { requireTs } from './ts-loader.mjs';

await ensureEnv(import.meta.url);
const { admitTool, admissionText } = requireTs('tools/admit/admit-tool.ts');
let values;
try {
  ({ values } = parseArgs({
    options: { service: { type: 'string' }, tool: { type: 'string', multiple: true } },
  }));
  if (!values.service) throw new Error('--service <suffix> is required');
  process.stdout.write(
    admissionText(admitTool(values.service, values.tool ?? [], process.env.NOVELRAG_TOOL_OWNERS ?? '')),
  );
} catch (err) {
  console.error(`admit-tool: ${err instanceof Error ? err.message : String(err)}`);
  console.error('usage: npm run admit-tool -- --service <suffix> --tool <Name> [--tool <Name>...]');
  process.exit(2);
}
