import { code, generatedBanner, table } from './markdown';
import type { PropertyDoc } from './subject-docs';

type Json = Record<string, unknown>;

/** What docs/bus-api.md is generated from: the contracts' subjects, streams, buckets, codes and JSON Schemas. */
export interface BusApiInput {
  readonly subjects: Readonly<Record<string, unknown>>;
  readonly serviceNames: readonly string[];
  readonly streams: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly buckets: Readonly<Record<string, string>>;
  readonly bucketTtlsMs: Readonly<Record<string, number>>;
  readonly toolQueueGroup: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly errorCodes: Readonly<Record<string, { retryable: boolean; httpStatus: number; meaning: string }>>;
  readonly schemas: Readonly<Record<string, Json>>;
  /** JSDoc of subjects.ts by property path (see `propertyDocs`). */
  readonly docs: ReadonlyMap<string, PropertyDoc>;
}

/**
 * Request and reply of the subjects whose JSDoc does not name them (the resource service's). A subject missing
 * here shows no messages; the docs test fails on a resource subject without them and on a name that is no contract.
 */
export const MESSAGE_HINTS: Readonly<Record<string, readonly string[]>> = {
  'novelrag.resources.find': ['FindRequest', 'FindReply'],
  'novelrag.resources.search': ['SearchRequest', 'SearchReply'],
  'novelrag.resources.segments': ['SegmentsRequest', 'SegmentsReply'],
  'novelrag.resources.apply': ['ApplyRequest', 'ApplyReply'],
  'novelrag.resources.relationships': ['RelationshipsUpdate', 'RelationshipsReply'],
  'novelrag.resources.aspects.list': ['AspectsListRequest', 'AspectsListReply'],
  'novelrag.resources.aspects.create': ['AspectCreateRequest', 'AspectCreateReply'],
  'novelrag.resources.aspects.remove': ['AspectRemoveRequest', 'AspectRemoveReply'],
  'novelrag.resources.undo': ['UndoRedoRequest', 'UndoRedoReply'],
  'novelrag.resources.redo': ['UndoRedoRequest', 'UndoRedoReply'],
  'novelrag.resources.operations': ['OperationsListRequest', 'OperationsListReply'],
  'novelrag.resources.backlog.add': ['BacklogAddRequest', 'BacklogAddReply'],
  'novelrag.resources.backlog.list': ['BacklogListRequest', 'BacklogListReply'],
  'novelrag.resources.backlog.remove': ['BacklogRemoveRequest', 'BacklogRemoveReply'],
  'novelrag.resources.import': ['ImportRequest', 'ImportReply'],
  'novelrag.resources.export': ['ExportRequest', 'ExportReply'],
  'novelrag.memory.summary': ['MemorySummaryRequest', 'MemorySummaryReply'],
  'novelrag.memory.retrieve': ['MemoryRetrieveRequest', 'MemoryRetrieveReply'],
  'novelrag.memory.store': ['MemoryStoreRequest', 'MemoryStoreReply'],
  'novelrag.memory.forget': ['MemoryForgetRequest', 'MemoryForgetReply'],
};

export interface SubjectRow {
  readonly subject: string;
  readonly messages: readonly string[];
  readonly doc: string;
}

/** The subject a builder makes, with `<param>` in place of each argument. */
export function pattern(
  fn: (...args: string[]) => unknown,
  params: readonly string[],
  serviceNames: readonly string[],
) {
  const names = params.length > 0 ? params : Array.from({ length: fn.length }, (_, i) => `arg${i}`);
  for (const service of [undefined, ...serviceNames]) {
    // Probe with valid tokens; a parameter that must be a service name gets one (the first that works).
    const probes = names.map((_, i) => (i === 0 && service ? service : `probe${i}x`));
    let subject: string;
    try {
      subject = String(fn(...probes));
    } catch {
      continue;
    }
    probes.forEach((probe, i) => {
      const token = probe === service ? new RegExp(`\\.${probe}(?=\\.|$)`) : probe;
      subject = subject.replace(token, probe === service ? `.<${names[i]}>` : `<${names[i]}>`);
    });
    return subject;
  }
  throw new Error(`cannot render the subject builder ${fn.name || '(anonymous)'}`);
}

function messagesOf(doc: string, subject: string, schemas: Readonly<Record<string, Json>>): string[] {
  const named = [...doc.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1]?.match(/[A-Z][A-Za-z]+/g) ?? []);
  return [...new Set([...named.filter((n) => n in schemas), ...(MESSAGE_HINTS[subject] ?? [])])];
}

/** Every subject of `Subjects`, nested objects included, in source order. */
export function subjectRows(input: BusApiInput): SubjectRow[] {
  const rows: SubjectRow[] = [];
  const walk = (object: Readonly<Record<string, unknown>>, docPath: string, inherited: string) => {
    for (const [key, value] of Object.entries(object)) {
      const doc = input.docs.get(`${docPath}.${key}`);
      const text = doc?.doc || inherited;
      if (typeof value === 'object' && value !== null) {
        const nested = doc?.alias ?? `${docPath}.${key}`;
        walk(value as Record<string, unknown>, nested, input.docs.get(nested)?.doc || text);
        continue;
      }
      const subject =
        typeof value === 'function'
          ? pattern(value as (...args: string[]) => unknown, doc?.params ?? [], input.serviceNames)
          : String(value);
      rows.push({ subject, messages: messagesOf(doc?.doc ?? '', subject, input.schemas), doc: text });
    }
  };
  walk(input.subjects, 'Subjects', '');
  return rows;
}

const schemaLink = (name: string) => `[${name}](../libs/contracts/json-schema/${name}.json)`;

/** One line on a JSON Schema: its fields (`name?` optional), or its variants and what tells them apart. */
export function schemaSummary(schema: Json): string {
  const properties = schema['properties'] as Record<string, Json> | undefined;
  if (properties) {
    const required = new Set((schema['required'] as string[] | undefined) ?? []);
    const fields = Object.keys(properties).map((k) => code(required.has(k) ? k : `${k}?`));
    return fields.length > 0 ? `object: ${fields.join(', ')}` : 'empty object `{}`';
  }
  const variants = (schema['oneOf'] ?? schema['anyOf']) as Json[] | undefined;
  if (variants) {
    const props = variants.map((v) => (v['properties'] as Record<string, Json> | undefined) ?? {});
    const tag = Object.keys(props[0] ?? {}).find((k) => props.every((p) => p[k]?.['const'] !== undefined));
    if (tag)
      return `one of, by ${code(tag)}: ${props.map((p) => code(String(p[tag]?.['const']))).join(', ')}`;
    return `one of ${variants.length} shapes`;
  }
  if (Array.isArray(schema['enum'])) return `one of ${schema['enum'].map((v) => code(String(v))).join(', ')}`;
  return String(schema['type'] ?? 'any');
}

function duration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms} ms`;
}

function streamDetails(stream: Readonly<Record<string, unknown>>): string {
  return Object.entries(stream)
    .filter(([k]) => !['name', 'subjects', 'retention'].includes(k))
    .map(([k, v]) => {
      if (typeof v === 'number' && k.endsWith('Ms')) return `${k.slice(0, -2)} ${duration(v)}`;
      if (typeof v === 'number' && k.endsWith('Bytes')) return `${k} ${v / 1024 / 1024} MiB`;
      return `${k} ${code(String(v))}`;
    })
    .join(', ');
}

function storageSections(input: BusApiInput): string[] {
  const streams = Object.entries(input.streams).map(([key, s]) => [
    code(String(s['name'])),
    (s['subjects'] as string[]).map(code).join(', '),
    String(s['retention']),
    streamDetails(s),
    input.docs.get(`Streams.${key}`)?.doc ?? '',
  ]);
  const buckets = Object.entries(input.buckets).map(([key, name]) => {
    const ttl = input.bucketTtlsMs[`${key}Ms`];
    return [code(name), ttl === undefined ? '—' : duration(ttl), input.docs.get(`Buckets.${key}`)?.doc ?? ''];
  });
  return [
    '## JetStream streams',
    table(['stream', 'subjects', 'retention', 'limits', 'what'], streams),
    '## KV buckets',
    table(['bucket', 'TTL', 'what'], buckets),
  ];
}

/** The error-code table's rows: code, status, retryable, meaning. */
export function errorCodeRows(errorCodes: BusApiInput['errorCodes']): string[][] {
  return Object.entries(errorCodes).map(([name, info]) => [
    code(name),
    String(info.httpStatus),
    info.retryable ? 'yes' : 'no',
    info.meaning,
  ]);
}

function conventionSections(input: BusApiInput): string[] {
  const headers = Object.entries(input.headers).map(([key, name]) => [
    code(name),
    input.docs.get(`BusHeaders.${key}`)?.doc ?? '',
  ]);
  const codes = errorCodeRows(input.errorCodes);
  return [
    '## Headers',
    `Tool endpoints are served in the queue group ${code(input.toolQueueGroup)}, so one runner answers each invocation.`,
    table(['header', 'what'], headers),
    '## Error codes',
    'The fixed list that crosses process boundaries; receivers decide by code, never by message text.',
    table(['code', 'HTTP / service error status', 'retryable', 'meaning'], codes),
  ];
}

const INTRO = `# Bus API

Every service is a NATS micro service (\`$SRV.INFO\` and \`$SRV.PING\` discover them). Requests, replies and events
are plain JSON, parsed with the zod schemas of \`libs/contracts\`; the JSON Schemas of those messages, for clients in
other languages, are in [\`libs/contracts/json-schema/\`](../libs/contracts/json-schema) (regenerated by
\`npm run schemas:export\`, checked by a test). A reply is \`{"ok": true, "data": …}\` or
\`{"ok": false, "error": {"code", "message", "retryable", "details"?}}\` (\`Reply<T>\` below); an error reply also
carries the micro protocol's \`Nats-Service-Error\` and \`Nats-Service-Error-Code\` headers. Ids embedded in subjects
are single subject tokens: no dots, whitespace, \`*\` or \`>\`, at most 128 characters.`;

/** docs/bus-api.md, from the contracts. */
export function renderBusApi(input: BusApiInput): string {
  const subjects = subjectRows(input).map((r) => [
    code(r.subject),
    r.messages.length > 0 ? r.messages.map(schemaLink).join(', ') : '—',
    r.doc,
  ]);
  const messages = Object.entries(input.schemas).map(([name, schema]) => [
    schemaLink(name),
    schemaSummary(schema),
  ]);
  return (
    [
      generatedBanner('`libs/contracts` (subjects, streams, buckets, error codes and JSON Schemas)'),
      INTRO,
      '## Subjects',
      table(['subject', 'messages', 'what'], subjects),
      ...storageSections(input),
      ...conventionSections(input),
      '## Messages',
      'Every message by name, with its top-level fields (`name?` is optional); the linked JSON Schema has the rest.',
      table(['message', 'shape'], messages),
    ].join('\n\n') + '\n'
  );
}
