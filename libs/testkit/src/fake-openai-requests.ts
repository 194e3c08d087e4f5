// How the fake OpenAI server reads, classifies and matches a request.
import type { IncomingMessage } from 'node:http';
import type { FakeMatch, FakeRequestKind, RecordedRequest } from './fake-openai-types';

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kindOf(body: Json): FakeRequestKind {
  if (Array.isArray(body['tools']) && body['tools'].length > 0) return 'tools';
  if (isObject(body['response_format']) && body['response_format']['type'] !== 'text') return 'structured';
  return 'text';
}

function schemaNameOf(body: Json): string | undefined {
  const format = body['response_format'];
  if (!isObject(format) || !isObject(format['json_schema'])) return undefined;
  const name = format['json_schema']['name'];
  return typeof name === 'string' ? name : undefined;
}

function toolNamesOf(body: Json): string[] {
  const tools = body['tools'];
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t: unknown) =>
    isObject(t) && isObject(t['function']) && typeof t['function']['name'] === 'string'
      ? [t['function']['name']]
      : [],
  );
}

export function matches(match: FakeMatch | undefined, request: RecordedRequest): boolean {
  const endpoint = match?.endpoint ?? 'chat';
  if (endpoint !== request.endpoint) return false;
  if (!match) return true;
  if (match.kind !== undefined && match.kind !== request.kind) return false;
  if (match.schemaName !== undefined && match.schemaName !== request.schemaName) return false;
  if (match.model !== undefined && (!isObject(request.body) || request.body['model'] !== match.model))
    return false;
  if (match.toolNames !== undefined) {
    const names = request.toolNames ?? [];
    if (typeof match.toolNames === 'function') {
      if (!match.toolNames(names)) return false;
    } else {
      const want = [...match.toolNames].sort();
      const got = [...names].sort();
      if (want.length !== got.length || want.some((n, i) => n !== got[i])) return false;
    }
  }
  return match.where === undefined || match.where(request);
}

export function describe(request: RecordedRequest): string {
  if (request.endpoint !== 'chat') return `${request.method} ${request.path}`;
  const parts = [`${request.kind ?? 'unknown'} chat request`];
  if (request.schemaName) parts.push(`schema "${request.schemaName}"`);
  if (request.toolNames?.length) parts.push(`tools [${request.toolNames.join(', ')}]`);
  return parts.join(', ');
}

/** A request as recorded, before the server knows whether a handler matches it. */
export type ParsedRequest = Omit<RecordedRequest, 'matched'>;

/**
 * Reads and classifies a request: its JSON body (or raw text), endpoint, headers (credentials left out), and for a
 * chat request its kind, schema name and tool names.
 */
export async function parseRequest(req: IncomingMessage): Promise<ParsedRequest> {
  const raw = await readBody(req);
  let body: unknown = undefined;
  if (raw !== '') {
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
  }
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const endpoint = endpointOf(req.method, path);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (k === 'authorization' || k === 'api-key' || v === undefined) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const json = isObject(body) ? body : {};
  const base = { method: req.method ?? 'GET', path, endpoint, headers, body } as const;
  return endpoint === 'chat'
    ? { ...base, kind: kindOf(json), schemaName: schemaNameOf(json), toolNames: toolNamesOf(json) }
    : base;
}

function endpointOf(method: string | undefined, path: string): RecordedRequest['endpoint'] {
  if (method === 'POST' && path === '/v1/chat/completions') return 'chat';
  if (method === 'POST' && path === '/v1/embeddings') return 'embeddings';
  if (method === 'GET' && path === '/v1/models') return 'models';
  return 'other';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
