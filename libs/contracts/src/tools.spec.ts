import { z } from 'zod';
import {
  EncodedToolMetadata,
  SCHEMA_VERSION,
  TOOL_METADATA_DEFAULTS,
  TOOL_METADATA_KEYS,
  ToolMetadata,
  ToolMetadataError,
  ToolInvocation,
  ToolOutput,
  decodeToolMetadata,
  encodeToolMetadata,
  exportJsonSchemas,
  isErrorEnvelope,
  jsonParamsParser,
  safeParseToolInvocation,
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

describe('safeParseToolInvocation (ToolInvocation, parsed faster)', () => {
  const valid = {
    schemaVersion: SCHEMA_VERSION,
    invocationId: 'g-1-s0',
    goalId: 'g-1',
    step: 0,
    tool: 'ResourceQueryTool',
    params: { uri: '/人物/张三', depth: 2, tags: ['a', { deep: [null, true, 1.5] }] },
    deadline: 1_700_000_000_000,
    runtimeSubject: 'novelrag.goals.g-1.runtime',
    interactSubject: 'novelrag.goals.g-1.interact',
    lang: 'zh',
    attempt: 1,
    beliefs: ['The hero is brave'],
    workspace: { segments: [], excludedUris: [] },
    tokenBudget: 1_000,
  };
  const cases: Record<string, unknown> = {
    valid,
    'valid, no optional fields': { ...valid, lang: undefined, attempt: undefined, workspace: undefined },
    'empty params': { ...valid, params: {} },
    'params not an object': { ...valid, params: ['a'] },
    'params null': { ...valid, params: null },
    'a non-JSON number deep in params': { ...valid, params: { a: [{ b: Number.POSITIVE_INFINITY }] } },
    'undefined in params': { ...valid, params: { a: undefined } },
    'a function in params': { ...valid, params: { a: () => 1 } },
    'an unknown key': { ...valid, extra: true },
    'a bad subject and a bad step': { ...valid, runtimeSubject: 'novelrag.*', step: -1 },
    'a bad subject and bad params': { ...valid, interactSubject: 'a..b', params: { a: Number.NaN } },
    'missing fields': { schemaVersion: SCHEMA_VERSION, params: {} },
    'not an object': 'invocation',
    'JSON text': JSON.stringify(valid),
    'as parsed from JSON': JSON.parse(JSON.stringify(valid)),
    'a huge number from JSON': JSON.parse(JSON.stringify(valid).replace('"depth":2', '"depth":1e999')),
    // Keys JSON.parse makes own properties, which a plain assignment would not copy as such.
    '__proto__ in params, from JSON': JSON.parse(
      JSON.stringify(valid).replace('"params":{', '"params":{"__proto__":{"polluted":true},'),
    ),
    '__proto__ at the top, from JSON': JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(valid).slice(1)}`),
    'constructor in params and at the top': {
      ...valid,
      constructor: 1,
      params: { constructor: { prototype: 1 } },
    },
    'integer-like keys in params (own-key order)': {
      ...valid,
      params: { b: 1, 1: 2, 0: { 2: 1, x: 2, 1: 0 } },
    },
    'no prototype': Object.assign(Object.create(null) as object, valid, {
      params: Object.assign(Object.create(null) as object, { a: 1 }),
    }),
    'fields inherited': Object.create(valid) as unknown,
    'an unknown key inherited': Object.assign(Object.create({ extra: 1 }) as object, valid),
    'a symbol key in params': { ...valid, params: { a: 1, [Symbol('s')]: 1 } },
    'a hole in an array in params': {
      ...valid,
      params: { a: Object.assign(new Array<unknown>(3), { 0: 1, 2: 3 }) },
    },
    'a class instance as params': { ...valid, params: new (class Params {})() },
    'a Map as params': { ...valid, params: new Map([['a', 1]]) },
    'keys out of order': Object.fromEntries(Object.entries({ ...valid, threadId: 't' }).reverse()),
    'an array as the invocation': [valid],
  };

  it.each(Object.entries(cases))('answers as ToolInvocation.safeParse: %s', (_name, raw) => {
    const fast = safeParseToolInvocation(raw);
    const reference = ToolInvocation.safeParse(raw);
    expect(fast.success).toBe(reference.success);
    if (fast.success && reference.success) {
      expect(fast.data).toStrictEqual(reference.data);
      expect(Object.keys(fast.data)).toEqual(Object.keys(reference.data));
      expect(Reflect.ownKeys(fast.data.params)).toEqual(Reflect.ownKeys(reference.data.params));
    } else {
      expect(fast.error?.issues).toEqual(reference.error?.issues);
    }
  });

  it('checks the envelope with the compiled fast path (z.compile does not fall back to the runtime for it)', () => {
    const envelope = ToolInvocation.extend({ params: z.record(z.string(), z.unknown()) });
    expect(() => z.compile(envelope, { strict: true })).not.toThrow();
  });

  it('refuses params nested too deep to check instead of throwing', () => {
    let params: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) params = { a: params };
    const parsed = safeParseToolInvocation({ ...valid, params });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({ path: ['params'], message: 'nested too deep to check' }),
    ]);
  });

  it('copies the params (the caller may keep or change its own object)', () => {
    const params = { a: { b: [1] } };
    const parsed = safeParseToolInvocation({ ...valid, params });
    expect(parsed.success && parsed.data.params).toEqual(params);
    expect(parsed.success && parsed.data.params).not.toBe(params);
    expect(parsed.success && parsed.data.params['a']).not.toBe(params.a);
  });

  it('works for any object contract with JSON params (the orchestrator checks its calls with it)', () => {
    const CallPart = ToolInvocation.pick({ tool: true, params: true, step: true });
    const parse = jsonParamsParser(CallPart);
    expect(parse({ tool: 'T', params: { x: 1 }, step: 1 })).toEqual(
      CallPart.safeParse({ tool: 'T', params: { x: 1 }, step: 1 }),
    );
    const bad = { tool: 'no spaces', params: { x: Number.NaN }, step: 1 };
    expect(parse(bad).error?.issues).toEqual(CallPart.safeParse(bad).error?.issues);
  });
});
