import {
  EncodedToolMetadata,
  TOOL_METADATA_DEFAULTS,
  TOOL_METADATA_KEYS,
  ToolMetadata,
  ToolMetadataError,
  ToolOutput,
  decodeToolMetadata,
  encodeToolMetadata,
  exportJsonSchemas,
  isErrorEnvelope,
} from './index';

const meta: ToolMetadata = {
  description: '创建或修改资源',
  prerequisites: 'The aspect must exist',
  outputDescription: 'A summary',
  inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  timeoutMs: 30_000,
  readOnly: false,
  destructive: true,
  idempotent: false,
  schemaVersion: 1,
};

describe('tool metadata', () => {
  it('encodes to strings only, with the documented keys', () => {
    const encoded = encodeToolMetadata(meta);
    for (const v of Object.values(encoded)) expect(typeof v).toBe('string');
    expect(encoded).toMatchObject({
      description: '创建或修改资源',
      output_description: 'A summary',
      timeout_ms: '30000',
      read_only: 'false',
      destructive: 'true',
      idempotent: 'false',
      schema_version: '1',
    });
    expect(JSON.parse(encoded['input_schema']!)).toEqual(meta.inputSchema);
  });

  it('round-trips', () => {
    expect(decodeToolMetadata(encodeToolMetadata(meta))).toEqual(meta);
    const minimal: ToolMetadata = {
      description: 'echo',
      inputSchema: {},
      readOnly: true,
      destructive: false,
      idempotent: true,
      schemaVersion: 1,
    };
    expect(decodeToolMetadata(encodeToolMetadata(minimal))).toEqual(minimal);
  });

  it('decodes minimal third-party metadata with defaults', () => {
    expect(
      decodeToolMetadata({ description: 'echo', input_schema: '{"type":"object"}', read_only: 'TRUE' }),
    ).toEqual({
      description: 'echo',
      inputSchema: { type: 'object' },
      readOnly: true,
      destructive: false,
      idempotent: false,
      schemaVersion: 1,
    });
  });

  it.each([
    [{ input_schema: '{}' }, 'description', /"description" is required/],
    [{ description: 'd' }, 'input_schema', /"input_schema" is required/],
    [{ description: 'd', input_schema: '{nope' }, 'input_schema', /not valid JSON/],
    [{ description: 'd', input_schema: '{}', read_only: 'yes' }, 'read_only', /"true" or "false"/],
    [{ description: 'd', input_schema: '{}', timeout_ms: '10s' }, 'timeout_ms', /integer/],
    [
      { description: 'd', input_schema: '{"type":"array"}' },
      'input_schema',
      /inputSchema: input schema must describe an object/,
    ],
    [{ description: 'd', input_schema: '{}', timeout_ms: '5' }, 'timeout_ms', /timeoutMs: /],
  ])('rejects %p naming %s', (record, key, message) => {
    let caught: unknown;
    try {
      decodeToolMetadata(record);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ToolMetadataError);
    expect((caught as ToolMetadataError).key).toBe(key);
    expect((caught as ToolMetadataError).message).toMatch(message);
    expect((caught as ToolMetadataError).code).toBe('VALIDATION_FAILED');
  });
});

describe('tool metadata defaults (what a third party may leave out)', () => {
  const optionalKeys = ['readOnly', 'destructive', 'idempotent', 'schemaVersion'] as const;
  const schemas = exportJsonSchemas();

  it('are in the published JSON Schemas: not required, with their default', () => {
    const decoded = schemas.ToolMetadata as {
      required: string[];
      properties: Record<string, { default?: unknown }>;
    };
    const encoded = schemas.EncodedToolMetadata as typeof decoded;
    for (const key of optionalKeys) {
      expect(decoded.required).not.toContain(key);
      expect(decoded.properties[key]?.default).toBe(TOOL_METADATA_DEFAULTS[key]);
      const wire = TOOL_METADATA_KEYS[key];
      expect(encoded.required).not.toContain(wire);
      expect(encoded.properties[wire]?.default).toBe(String(TOOL_METADATA_DEFAULTS[key]));
    }
    expect(encoded.required.sort()).toEqual(['description', 'input_schema']);
  });

  it('are what the zod schemas and the decoder fill in', () => {
    const filled = { ...TOOL_METADATA_DEFAULTS, description: 'd', inputSchema: {} };
    expect(ToolMetadata.parse({ description: 'd', inputSchema: {} })).toEqual(filled);
    expect(decodeToolMetadata({ description: 'd', input_schema: '{}' })).toEqual(filled);
    expect(
      decodeToolMetadata({ description: 'd', input_schema: '{}', read_only: '', idempotent: '' }),
    ).toEqual(filled);
    expect(EncodedToolMetadata.parse({ description: 'd', input_schema: '{}' })).toEqual({
      description: 'd',
      input_schema: '{}',
      read_only: 'false',
      destructive: 'false',
      idempotent: 'false',
      schema_version: '1',
    });
  });
});

describe('ToolOutput', () => {
  it('keeps unknown keys from third-party tools', () => {
    const out = ToolOutput.parse({ type: 'result', result: 'ok', vendor: { a: 1 } });
    expect(out).toEqual({ type: 'result', result: 'ok', vendor: { a: 1 } });
  });

  it('carries an error envelope', () => {
    const out = ToolOutput.parse({
      type: 'error',
      error: { code: 'TOOL_FAILED', message: 'x', retryable: false },
    });
    expect(out.type === 'error' && isErrorEnvelope(out.error)).toBe(true);
  });
});
