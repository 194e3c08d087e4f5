import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BucketTtls,
  Buckets,
  BusHeaders,
  ERROR_CODE_INFO,
  SERVICE_NAMES,
  Streams,
  Subjects,
  TOOL_QUEUE_GROUP,
  exportJsonSchemas,
} from '@novelrag/contracts';
import { format, resolveConfig } from 'prettier';
import { renderBusApi, type BusApiInput } from './bus-api-doc';
import { renderConfiguration } from './configuration-doc';
import { ENV_SOURCES } from './env-sources';
import { propertyDocs } from './subject-docs';

export const REPO_ROOT = path.resolve(__dirname, '../..');
const SUBJECTS_FILE = 'libs/contracts/src/subjects.ts';

export function busApiInput(): BusApiInput {
  return {
    subjects: Subjects,
    serviceNames: SERVICE_NAMES,
    streams: Streams,
    buckets: Buckets,
    bucketTtlsMs: BucketTtls,
    toolQueueGroup: TOOL_QUEUE_GROUP,
    headers: BusHeaders,
    errorCodes: ERROR_CODE_INFO,
    schemas: exportJsonSchemas(),
    docs: propertyDocs(SUBJECTS_FILE, readFileSync(path.join(REPO_ROOT, SUBJECTS_FILE), 'utf8')),
  };
}

/** The generated documents by path (relative to the repository), formatted as `prettier --check` expects. */
export async function generatedDocs(): Promise<Record<string, string>> {
  const raw: Record<string, string> = {
    'docs/configuration.md': renderConfiguration(ENV_SOURCES),
    'docs/bus-api.md': renderBusApi(busApiInput()),
  };
  const out: Record<string, string> = {};
  for (const [file, text] of Object.entries(raw)) {
    const filepath = path.join(REPO_ROOT, file);
    out[file] = await format(text, { ...(await resolveConfig(filepath)), filepath });
  }
  return out;
}
