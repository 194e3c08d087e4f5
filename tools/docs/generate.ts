import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BucketTtls,
  Buckets,
  BusHeaders,
  ERROR_CODE_INFO,
  INPUT_SCHEMA_DIALECTS,
  MAX_MESSAGE_BYTES,
  MAX_TEXT_CHARS,
  MAX_TOOL_RESULT_CHARS,
  MICRO_VERBS,
  MicroServiceNames,
  MicroSubjects,
  SERVICE_NAMES,
  Streams,
  Subjects,
  TOOL_METADATA_DEFAULTS,
  TOOL_METADATA_KEYS,
  TOOL_QUEUE_GROUP,
  exportJsonSchemas,
} from '@novelrag/contracts';
import { MAX_ERROR_DETAILS_CHARS, MAX_ERROR_MESSAGE_CHARS } from '@novelrag/tool-kit';
import { format, resolveConfig } from 'prettier';
import { renderBusApi, type BusApiInput } from './bus-api-doc';
import { renderConfiguration } from './configuration-doc';
import { ENV_SOURCES } from './env-sources';
import { type PropertyDoc, propertyDocs } from './subject-docs';
import { renderToolContract, type ToolContractInput } from './tool-contract-doc';

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

/** The JSDoc of the contract files a tool author reads (constants and zod fields, by path). */
function contractDocs(files: readonly string[]): Map<string, PropertyDoc> {
  const docs = new Map<string, PropertyDoc>();
  for (const file of files) {
    const text = readFileSync(path.join(REPO_ROOT, 'libs/contracts/src', file), 'utf8');
    for (const [key, doc] of propertyDocs(file, text)) docs.set(key, doc);
  }
  return docs;
}

export function toolContractInput(): ToolContractInput {
  return {
    subjects: Subjects,
    micro: { verbs: MICRO_VERBS, all: MicroSubjects.all as never, service: MicroSubjects.service as never },
    toolServiceName: (suffix) => `${MicroServiceNames.tools}-${suffix}`,
    queueGroup: TOOL_QUEUE_GROUP,
    headers: BusHeaders,
    errorCodes: ERROR_CODE_INFO,
    metadataKeys: TOOL_METADATA_KEYS,
    metadataDefaults: TOOL_METADATA_DEFAULTS,
    dialects: INPUT_SCHEMA_DIALECTS,
    caps: {
      messageBytes: MAX_MESSAGE_BYTES,
      resultChars: MAX_TOOL_RESULT_CHARS,
      textChars: MAX_TEXT_CHARS,
      toolKitErrorMessageChars: MAX_ERROR_MESSAGE_CHARS,
      toolKitErrorDetailsChars: MAX_ERROR_DETAILS_CHARS,
    },
    schemas: exportJsonSchemas(),
    docs: contractDocs(['subjects.ts', 'tools.ts', 'micro.ts', 'goals.ts', 'errors.ts']),
  };
}

/** The generated documents by path (relative to the repository), formatted as `prettier --check` expects. */
export async function generatedDocs(): Promise<Record<string, string>> {
  const raw: Record<string, string> = {
    'docs/configuration.md': renderConfiguration(ENV_SOURCES),
    'docs/bus-api.md': renderBusApi(busApiInput()),
    'docs/reference/tool-contract.md': renderToolContract(toolContractInput()),
  };
  const out: Record<string, string> = {};
  for (const [file, text] of Object.entries(raw)) {
    const filepath = path.join(REPO_ROOT, file);
    out[file] = await format(text, { ...(await resolveConfig(filepath)), filepath });
  }
  return out;
}
