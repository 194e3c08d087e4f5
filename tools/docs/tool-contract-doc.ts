import { code, generatedBanner, table } from './markdown';
import { errorCodeRows, pattern, schemaSummary } from './bus-api-doc';
import type { PropertyDoc } from './subject-docs';

type Json = Record<string, unknown>;
type Builder = (...args: string[]) => string;

/** What docs/reference/tool-contract.md is generated from (all of it from `libs/contracts`, caps from the tool kit). */
export interface ToolContractInput {
  readonly subjects: {
    readonly toolInvoke: Builder;
    readonly goalCancel: Builder;
    readonly goalRuntime: Builder;
    readonly goalInteract: Builder;
    readonly toolsChanged: string;
  };
  readonly micro: { readonly verbs: readonly string[]; readonly all: Builder; readonly service: Builder };
  readonly toolServiceName: (suffix: string) => string;
  readonly queueGroup: string;
  readonly headers: { readonly serviceError: string; readonly serviceErrorCode: string };
  readonly errorCodes: Readonly<Record<string, { retryable: boolean; httpStatus: number; meaning: string }>>;
  readonly metadataKeys: Readonly<Record<string, string>>;
  readonly metadataDefaults: Readonly<Record<string, unknown>>;
  readonly dialects: readonly string[];
  readonly caps: {
    readonly messageBytes: number;
    readonly resultChars: number;
    readonly textChars: number;
    readonly toolKitErrorMessageChars: number;
    readonly toolKitErrorDetailsChars: number;
  };
  readonly schemas: Readonly<Record<string, Json>>;
  /** JSDoc by path (`ToolInvocation.deadline`, `Subjects.goalCancel`, `MicroPingResponse`…). */
  readonly docs: ReadonlyMap<string, PropertyDoc>;
}

/** Shapes spread into several messages, whose fields' JSDoc is found there. */
const SHARED_DOCS = ['MicroIdentity', 'outputExtras'];

const link = (name: string) => `[${name}](../../libs/contracts/json-schema/${name}.json)`;

/** A JSON Schema property as a short type: `string ≤ 128`, `integer ≥ 0`, `1`, `"up" \| "down"`, `object`. */
export function typeOf(schema: Json | undefined): string {
  if (!schema) return 'any';
  if (schema['const'] !== undefined) return JSON.stringify(schema['const']);
  if (Array.isArray(schema['enum']))
    return schema['enum'].length > 6
      ? 'error code (table below)'
      : schema['enum'].map((v) => JSON.stringify(v)).join(' | ');
  const variants = (schema['anyOf'] ?? schema['oneOf']) as Json[] | undefined;
  if (variants) return [...new Set(variants.map(typeOf))].join(' | ');
  if (schema['$ref'] !== undefined) return 'object';
  const type = String(schema['type'] ?? 'any');
  const limits = [
    schema['format'] !== undefined ? `(${String(schema['format'])})` : '',
    schema['minimum'] !== undefined ? `≥ ${String(schema['minimum'])}` : '',
    schema['maximum'] !== undefined && schema['maximum'] !== Number.MAX_SAFE_INTEGER
      ? `≤ ${String(schema['maximum'])}`
      : '',
    typeof schema['pattern'] === 'string' && schema['pattern'].length <= 40 ? code(schema['pattern']) : '',
    schema['maxLength'] !== undefined ? `≤ ${String(schema['maxLength'])} chars` : '',
    schema['maxItems'] !== undefined ? `≤ ${String(schema['maxItems'])} items` : '',
  ].filter(Boolean);
  if (type === 'array') return `array of ${typeOf(schema['items'] as Json | undefined)}`;
  return [type, ...limits].join(' ');
}

/**
 * One row per field of an object schema: name, type, required/default, what (its JSDoc in the contracts, looked up
 * under each of `docPaths` in turn, for fields spread in from a shared shape).
 */
export function fieldRows(
  schema: Json,
  docs: ReadonlyMap<string, PropertyDoc>,
  ...docPaths: string[]
): string[][] {
  const properties = (schema['properties'] ?? {}) as Record<string, Json>;
  const required = new Set((schema['required'] as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, prop]) => [
    code(name),
    typeOf(prop),
    required.has(name)
      ? 'required'
      : prop['default'] !== undefined
        ? `default ${code(JSON.stringify(prop['default']))}`
        : 'optional',
    docPaths.map((p) => docs.get(`${p}.${name}`)?.doc).find(Boolean) ?? '',
  ]);
}

function messageSection(input: ToolContractInput, name: string, intro: string): string[] {
  const schema = input.schemas[name];
  if (!schema) throw new Error(`no contract ${name}`);
  const variants = (schema['oneOf'] ?? schema['anyOf']) as Json[] | undefined;
  const parts = [`### ${link(name)}`, intro || (input.docs.get(name)?.doc ?? '')];
  if (schema['properties'])
    parts.push(
      table(['field', 'type', 'presence', 'what'], fieldRows(schema, input.docs, name, ...SHARED_DOCS)),
    );
  else if (variants) {
    parts.push(schemaSummary(schema));
    for (const variant of variants)
      parts.push(
        table(['field', 'type', 'presence', 'what'], fieldRows(variant, input.docs, name, ...SHARED_DOCS)),
      );
  }
  return parts;
}

function subjectsSection(input: ToolContractInput): string[] {
  const s = input.subjects;
  const doc = (key: string) => input.docs.get(`Subjects.${key}`)?.doc ?? '';
  const rows = [
    [
      code(pattern(s.toolInvoke, ['tool'], [])),
      'orchestrator → tool, request/reply',
      `${link('ToolInvocation')} → ${link('ToolOutput')}`,
      `${doc('toolInvoke')} Queue group ${code(input.queueGroup)}.`,
    ],
    [
      code(pattern(s.goalCancel, ['goalId'], [])),
      'gateway → orchestrators and tools, event',
      link('CancelRequest'),
      'The goal was cancelled: stop its running calls.',
    ],
    [
      code(pattern(s.goalRuntime, ['goalId'], [])),
      'tool → orchestrator, event (optional)',
      link('RuntimeEvent'),
      doc('goalRuntime'),
    ],
    [
      code(pattern(s.goalInteract, ['goalId'], [])),
      'tool → orchestrator, request/reply (optional)',
      `${link('InteractionRequest')} → \`Reply<\`${link('InteractionReply')}\`>\``,
      doc('goalInteract'),
    ],
    [
      code(s.toolsChanged),
      'tool → orchestrators, event (optional)',
      link('ToolsChanged'),
      doc('toolsChanged'),
    ],
  ];
  return [
    '## Subjects a tool deals with',
    `The invoke, runtime and interact subjects come in every \`ToolInvocation\` (\`runtimeSubject\`, \`interactSubject\`); use those values. A tool service is named ${code(input.toolServiceName('<suffix>'))} (suffix \`[A-Za-z0-9_-]{1,64}\`); the built-in runner's is \`novelrag-tools\`.`,
    table(['subject', 'direction', 'messages', 'what'], rows),
  ];
}

function discoverySection(input: ToolContractInput): string[] {
  const verbRows = input.micro.verbs.map((verb) => {
    const used =
      verb === 'INFO'
        ? `discovery: ${code(input.micro.all(verb))} at start, on every \`ToolsChanged\`, and periodically`
        : verb === 'PING'
          ? `liveness while a call is pending: ${code(input.micro.service(verb, 'probe0x').replace('probe0x', '<service>'))}, about once a second; any reply means alive, "no responders" means gone`
          : 'not read by the platform (operators)';
    const reply = `Micro${verb.charAt(0)}${verb.slice(1).toLowerCase()}Response`;
    return [code(`$SRV.${verb}[.<service>[.<id>]]`), link(reply), used];
  });
  return [
    '## Discovery and liveness: the NATS service protocol',
    'Each verb is answered on three subjects: `$SRV.<VERB>` (every service), `$SRV.<VERB>.<service>` (every instance of that service) and `$SRV.<VERB>.<service>.<id>` (one instance). Requests have an empty body; the reply is one JSON object. A micro library does this for you; without one, subscribe to the nine subjects (no queue group: every instance answers).',
    table(['verb', 'reply', 'what the platform does with it'], verbRows),
    ...messageSection(input, 'MicroInfoResponse', ''),
    'Each entry of `endpoints` is one tool:',
    table(
      ['field', 'type', 'presence', 'what'],
      fieldRows(endpointSchema(input), input.docs, 'MicroEndpointInfo'),
    ),
    ...messageSection(input, 'MicroPingResponse', ''),
  ];
}

function endpointSchema(input: ToolContractInput): Json {
  const info = input.schemas['MicroInfoResponse'] as { properties: { endpoints: { items: Json } } };
  return info.properties.endpoints.items;
}

function metadataSection(input: ToolContractInput): string[] {
  const encoded = input.schemas['EncodedToolMetadata'] as {
    properties: Record<string, Json>;
    required: string[];
  };
  const decoded = input.schemas['ToolMetadata'] as { properties: Record<string, Json> };
  const rows = Object.entries(input.metadataKeys).map(([field, key]) => {
    const presence = encoded.required.includes(key)
      ? 'required'
      : field in input.metadataDefaults
        ? `default ${code(String(input.metadataDefaults[field]))}`
        : 'optional';
    const value =
      field === 'inputSchema' ? 'JSON text of an object schema' : typeOf(decoded.properties[field]);
    return [code(key), value, presence, input.docs.get(`ToolMetadata.${field}`)?.doc ?? ''];
  });
  return [
    '## Endpoint metadata',
    'Micro metadata values are strings: booleans are `"true"`/`"false"`, numbers decimal. A key left out (or empty) takes its default. An endpoint whose metadata does not decode is reported by discovery and not offered to the model.',
    table(['key', 'value', 'presence', 'what'], rows),
    `\`input_schema\` dialects (\`$schema\`): ${input.dialects.map(code).join(', ')}; without \`$schema\`, ${code(input.dialects[0] ?? '')}.`,
  ];
}

function errorsSection(input: ToolContractInput): string[] {
  const h = input.headers;
  const rows = errorCodeRows(input.errorCodes);
  return [
    '## Errors',
    `An error reply is a \`ToolOutput\` of type \`error\` whose \`error\` is an ${link('ErrorEnvelope')}, sent with two headers: ${code(h.serviceError)}: \`<CODE>: <message>\` (one line, no line breaks; the tool kit clips it to 256 characters) and ${code(h.serviceErrorCode)}: the status below. \`retryable\` is normally the code's default.`,
    table(['code', `${h.serviceErrorCode}`, 'retryable', 'meaning'], rows),
  ];
}

function capsSection(input: ToolContractInput): string[] {
  const c = input.caps;
  return [
    '## Size caps',
    table(
      ['what', 'cap', 'when exceeded'],
      [
        [
          'an invocation or a reply (whole NATS payload)',
          `${c.messageBytes} bytes`,
          'the tool kit answers `PAYLOAD_TOO_LARGE` to a larger invocation; a reply that big cannot be sent',
        ],
        [
          '`ToolOutput.result`',
          `${c.resultChars} characters`,
          'the orchestrator reads the reply as outside the contract (`TOOL_FAILED`); the tool kit answers `TOOL_OUTPUT_TOO_LARGE` instead',
        ],
        ['`ErrorEnvelope.message`', `${c.textChars} characters`, 'outside the contract (`TOOL_FAILED`)'],
        [
          'error message, as the tool kit sends it',
          `${c.toolKitErrorMessageChars} characters`,
          'clipped, with a note saying so',
        ],
        [
          'error `details` (JSON), as the tool kit sends it',
          `${c.toolKitErrorDetailsChars} characters`,
          'replaced by `{"clipped": true, "chars": n}`',
        ],
      ],
    ),
  ];
}

/** docs/reference/tool-contract.md, from the contracts. */
export function renderToolContract(input: ToolContractInput): string {
  return (
    [
      generatedBanner(
        '`libs/contracts` (subjects, micro answers, tool messages, metadata, error codes, caps)',
      ),
      '# Tool contract (reference)',
      'What a tool in any language sends and receives on the bus. [tools.md](../tools.md) explains the behaviour around it: deadlines, cancel, retries and duplicates, lost calls, validation. Check a running tool with `novelrag tools check <name>`.',
      ...subjectsSection(input),
      ...discoverySection(input),
      ...metadataSection(input),
      '## Messages',
      ...messageSection(input, 'ToolInvocation', ''),
      ...messageSection(
        input,
        'ToolOutput',
        'The reply: a result or an error (unknown keys are allowed and ignored).',
      ),
      ...messageSection(input, 'ErrorEnvelope', ''),
      ...messageSection(
        input,
        'CancelRequest',
        `Published on the goal's cancel subject; no reply is expected. The tool stops the goal's running calls and answers each \`CANCELLED\`.`,
      ),
      ...messageSection(input, 'ToolsChanged', ''),
      ...errorsSection(input),
      ...capsSection(input),
    ].join('\n\n') + '\n'
  );
}
