import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * EMULATION, NOT QDRANT. An in-process HTTP server answering the subset of Qdrant's REST API (v1.19) that
 * QdrantResourceStore calls through the real @qdrant/js-client-rest, so the store's logic runs where no Qdrant
 * server exists. Semantics follow Qdrant's documentation (cited at each rule). Any other route, body field,
 * condition, selector or query shape answers 501 in Qdrant's error shape, never a silent success, so a new
 * client call shows up as a failing test. Not emulated: approximate (HNSW) search (every search here is exact),
 * f32 rounding, integer point ids, shards, consistency, timeouts, persistence, returning vectors.
 */

/** One request as received: method, path, query string (`?wait=true`) and parsed JSON body. */
export type EmulatedRequest = { method: string; path: string; query: string; body: unknown };
/** `url` is for `new QdrantClient({ url, checkCompatibility: false })`; `requests` lists all, oldest first. */
export type RunningQdrantEmulator = {
  url: string;
  requests: readonly EmulatedRequest[];
  close(): Promise<void>;
};

type Obj = Record<string, unknown>;
type Sparse = Map<number, number>;
type Point = {
  id: string;
  version: number;
  dense: Map<string, number[]>;
  sparse: Map<string, Sparse>;
  payload: Obj;
};
type Scored = { point: Point; score: number };
type Predicate = (point: Point) => boolean;
type Distance = 'Cosine' | 'Dot';
/** Dense vectors by name ('' = the unnamed vector), sparse ones with their IDF flag, points by id. */
type Collection = {
  dense: Map<string, { size: number; distance: Distance }>;
  sparse: Map<string, boolean>;
  points: Map<string, Point>;
  indexes: Map<string, string>;
};

const httpError = (status: number, message: string) => Object.assign(new Error(message), { status });
const notEmulated = (what: string) => httpError(501, `qdrant-emulator: ${what} is not emulated`);
const formatError = (what: string) => httpError(400, `Format error in JSON body: ${what}`);
const wrongInput = (what: string) => httpError(400, `Wrong input: ${what}`);

const isObj = (value: unknown): value is Obj =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const absent = (value: unknown): value is undefined | null => value === undefined || value === null;
/** Qdrant takes one item or a list wherever a list is expected. */
const list = (value: unknown): unknown[] => (absent(value) ? [] : Array.isArray(value) ? value : [value]);
function asObj(value: unknown, what: string): Obj {
  if (!isObj(value)) throw formatError(`${what} must be an object`);
  return value;
}
/** The object's fields, refusing any the emulator does not implement (a new store option must fail loudly). */
function fields(value: unknown, allowed: readonly string[], what: string): Obj {
  const extra = Object.keys(asObj(value, what)).filter((key) => !allowed.includes(key));
  if (extra.length > 0) throw notEmulated(`${what} field(s) ${extra.join(', ')}`);
  return value as Obj;
}
function numbers(value: unknown, what: string): number[] {
  const items: unknown[] = Array.isArray(value) ? value : [null];
  if (!items.every((item) => typeof item === 'number' && Number.isFinite(item)))
    throw formatError(`${what}: numbers`);
  return items as number[];
}
function limitOf(value: unknown): number {
  if (absent(value)) return 10; // the documented default of scroll, query and prefetch
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw formatError('bad limit');
  return value;
}
function noVectors(withVector: unknown): void {
  if (!absent(withVector) && withVector !== false) throw notEmulated('with_vector');
}
/** Hyphenated lowercase UUIDs, the only ids the store sends; they sort like their 128-bit values (scroll order). */
function pointId(value: unknown): string {
  if (typeof value === 'string' && /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(value)) return value;
  throw notEmulated(`point id ${JSON.stringify(value)} (only hyphenated lowercase UUIDs are)`);
}
const byId = (a: Point, b: Point): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byScore = (a: Scored, b: Scored): number => b.score - a.score || byId(a.point, b.point);

/** A dot-separated payload key (search docs: nested fields by dot notation); `[]` and quoted keys are refused. */
function path(key: unknown): { parents: string[]; leaf: string } {
  const parts = typeof key === 'string' ? key.split('.') : [''];
  if (parts.some((part) => part === '')) throw formatError(`bad payload key ${JSON.stringify(key)}`);
  if (parts.some((part) => /[[\]"]/.test(part))) throw notEmulated(`payload key syntax ${String(key)}`);
  return { parents: parts.slice(0, -1), leaf: parts[parts.length - 1] ?? '' };
}
function objectAt(payload: Obj, parents: readonly string[]): Obj | undefined {
  let current: unknown = payload;
  for (const part of parents) current = isObj(current) ? current[part] : undefined;
  return isObj(current) ? current : undefined;
}

/**
 * with_payload: true/false, a key list (= include), {include} or {exclude}, keys possibly nested dot paths (search
 * docs, "Payload and vector in the result"). Compiled before any point is read, so a bad selector always fails.
 */
function payloadSelector(selector: unknown, byDefault: boolean): (payload: Obj) => Obj | null {
  const chosen = absent(selector) ? byDefault : selector;
  if (typeof chosen === 'boolean') return (payload) => (chosen ? structuredClone(payload) : null);
  const rule = Array.isArray(chosen)
    ? { include: chosen }
    : fields(chosen, ['include', 'exclude'], 'with_payload');
  const keys = rule['include'] ?? rule['exclude'];
  if (Object.keys(rule).length !== 1 || !Array.isArray(keys))
    throw formatError('with_payload: include or exclude');
  const paths = keys.map(path);
  if ('exclude' in rule) {
    return (payload) => {
      const out = structuredClone(payload); // only the leaf goes: its parent objects stay, possibly empty
      for (const { parents, leaf } of paths) Reflect.deleteProperty(objectAt(out, parents) ?? {}, leaf);
      return out;
    };
  }
  return (payload) => {
    const out: Obj = {};
    for (const { parents, leaf } of paths) {
      const value = objectAt(payload, parents)?.[leaf];
      if (value === undefined) continue;
      let target = out;
      for (const part of parents) target = isObj(target[part]) ? target[part] : (target[part] = {});
      target[leaf] = structuredClone(value);
    }
    return out;
  };
}

/**
 * must = all, should = at least one (when given), must_not = none, clauses nesting (filtering docs). Compiled
 * before any point is seen, so an unsupported condition fails even on an empty collection.
 */
function compileFilter(filter: unknown): Predicate {
  if (absent(filter)) return () => true;
  const clauses = fields(filter, ['must', 'should', 'must_not'], 'filter');
  const must = list(clauses['must']).map(condition);
  const should = list(clauses['should']).map(condition);
  const mustNot = list(clauses['must_not']).map(condition);
  return (point) =>
    must.every((holds) => holds(point)) &&
    (should.length === 0 || should.some((holds) => holds(point))) &&
    !mustNot.some((holds) => holds(point));
}
/** `{key, match: {value}}` or `{key, match: {any}}`; a stored array matches when one element does (filtering docs). */
function condition(raw: unknown): Predicate {
  if (!isObj(raw) || !('key' in raw)) return compileFilter(asObj(raw, 'condition'));
  const match = fields(fields(raw, ['key', 'match'], 'condition')['match'], ['value', 'any'], 'match');
  const wanted = 'value' in match ? [match['value']] : match['any'];
  if (Object.keys(match).length !== 1 || !Array.isArray(wanted)) throw formatError('match: value or any');
  const { parents, leaf } = path(raw['key']);
  return (point) => list(objectAt(point.payload, parents)?.[leaf]).some((value) => wanted.includes(value));
}

function sparseVector(raw: unknown, what: string): Sparse {
  const vector = fields(raw, ['indices', 'values'], what);
  const [indices, values] = [numbers(vector['indices'], what), numbers(vector['values'], what)];
  const out = new Map(indices.map((index, i) => [index, values[i] ?? 0]));
  if (indices.length !== values.length || out.size !== indices.length)
    throw wrongInput(`${what}: indices must be unique and as many as values`);
  return out;
}
function dimensioned(vector: number[], size: number): number[] {
  if (vector.length !== size)
    throw wrongInput(`Vector dimension error: expected dim: ${size}, got ${vector.length}`);
  return vector;
}

/**
 * Sparse search: dot product over shared indices; only points with a non-zero value at a query index come back
 * (search docs). With `modifier: idf` each query weight is multiplied by ln((N − n + 0.5)/(n + 0.5) + 1), N = points
 * in the collection, n = points with a non-zero value at that index (indexing docs, "IDF Modifier").
 */
function sparseSearch(collection: Collection, name: string, query: Sparse, candidates: Point[]): Scored[] {
  const all = [...collection.points.values()];
  const weights = [...query].map(([index, value]) => {
    const n = all.filter((point) => (point.sparse.get(name)?.get(index) ?? 0) !== 0).length;
    const idf = collection.sparse.get(name) ? Math.log((all.length - n + 0.5) / (n + 0.5) + 1) : 1;
    return { index, weight: value * idf, asked: value !== 0 };
  });
  return candidates.flatMap((point) => {
    const stored = point.sparse.get(name);
    const shared = weights.filter(({ index, asked }) => asked && (stored?.get(index) ?? 0) !== 0);
    const score = shared.reduce((sum, { index, weight }) => sum + weight * (stored?.get(index) ?? 0), 0);
    return shared.length > 0 ? [{ point, score }] : [];
  });
}

/** Cosine = dot product of the normalised vectors (search docs, "Metrics"); a zero vector scores 0. */
function similarity(distance: Distance, a: readonly number[], b: readonly number[]): number {
  const dot = (x: readonly number[], y: readonly number[]) =>
    x.reduce((sum, v, i) => sum + v * (y[i] ?? 0), 0);
  const norms = Math.sqrt(dot(a, a) * dot(b, b));
  return distance === 'Dot' ? dot(a, b) : norms === 0 ? 0 : dot(a, b) / norms;
}

/** One exact nearest-neighbour search: a dense vector or a sparse {indices, values} on the `using` vector. */
function nearest(collection: Collection, request: Obj): Scored[] {
  const { query, using } = request;
  const name = typeof using === 'string' ? using : '';
  const candidates = [...collection.points.values()].filter(compileFilter(request['filter']));
  const params = collection.dense.get(name);
  let scored: Scored[];
  if (Array.isArray(query) && params) {
    const vector = dimensioned(numbers(query, 'query'), params.size);
    scored = candidates.flatMap((point) => {
      const stored = point.dense.get(name);
      return stored ? [{ point, score: similarity(params.distance, vector, stored) }] : [];
    });
  } else if (isObj(query) && 'indices' in query && collection.sparse.has(name)) {
    scored = sparseSearch(collection, name, sparseVector(query, 'query'), candidates);
  } else {
    throw notEmulated(`query ${JSON.stringify(query) ?? '(none)'} on vector "${name}"`);
  }
  return scored.sort(byScore).slice(0, limitOf(request['limit']));
}

/**
 * RRF: Σ 1/(k + rank), rank zero-based, k = 2 (Qdrant's `position_score`, as the helper that wrote this read it; the
 * Rust client's RrfBuilder documents k = 60 for the parameterised form, so the constant is NOT verified against a
 * server). The store relies only on the order RRF gives, not on its scale. Ties by id here.
 */
export const QDRANT_RRF_K = 2;
/** `{prefetch: [...], query: {fusion: 'rrf'}}`: every prefetch searched on its own, then fused. */
function fuse(collection: Collection, request: Obj): Scored[] {
  const { fusion } = fields(request['query'], ['fusion'], 'query');
  if (fusion !== 'rrf') throw notEmulated(`fusion ${String(fusion)}`);
  const fused = new Map<string, Scored>();
  for (const prefetch of list(request['prefetch'])) {
    const ranked = nearest(collection, fields(prefetch, ['query', 'using', 'filter', 'limit'], 'prefetch'));
    ranked.forEach(({ point }, rank) => {
      const before = fused.get(point.id)?.score ?? 0;
      fused.set(point.id, { point, score: before + 1 / (QDRANT_RRF_K + rank) });
    });
  }
  return [...fused.values()].sort(byScore).slice(0, limitOf(request['limit']));
}

/** Upsert replaces the whole point, vectors included (points docs, "Named vectors"). */
function parsePoint(collection: Collection, raw: unknown, version: number): Point {
  const point = fields(raw, ['id', 'vector', 'payload'], 'point');
  const payload = absent(point['payload']) ? {} : structuredClone(asObj(point['payload'], 'payload'));
  const parsed: Point = { id: pointId(point['id']), version, dense: new Map(), sparse: new Map(), payload };
  const vectors = Array.isArray(point['vector']) ? { '': point['vector'] } : asObj(point['vector'], 'vector');
  for (const [name, value] of Object.entries(vectors)) {
    const params = collection.dense.get(name);
    if (params) parsed.dense.set(name, dimensioned(numbers(value, `vector ${name}`), params.size));
    else if (collection.sparse.has(name)) parsed.sparse.set(name, sparseVector(value, `vector ${name}`));
    else throw wrongInput(`Not existing vector name error: ${name}`);
  }
  return parsed;
}

function createCollection(raw: unknown): Collection {
  const body = fields(raw, ['vectors', 'sparse_vectors'], 'create collection');
  const vectors = asObj(body['vectors'] ?? {}, 'vectors');
  const collection: Collection = {
    dense: new Map(),
    sparse: new Map(),
    points: new Map(),
    indexes: new Map(),
  };
  for (const [name, value] of 'size' in vectors ? [['', vectors] as const] : Object.entries(vectors)) {
    const { size, distance } = fields(value, ['size', 'distance'], 'vector params');
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) throw formatError('bad vector size');
    if (distance !== 'Cosine' && distance !== 'Dot') throw notEmulated(`distance ${String(distance)}`);
    collection.dense.set(name, { size, distance });
  }
  for (const [name, value] of Object.entries(asObj(body['sparse_vectors'] ?? {}, 'sparse_vectors'))) {
    const { modifier } = fields(value, ['modifier'], 'sparse vector params');
    if (!absent(modifier) && modifier !== 'none' && modifier !== 'idf') throw formatError('bad modifier');
    collection.sparse.set(name, modifier === 'idf');
  }
  return collection;
}

/** The part of GET /collections/{name} the store reads (config.params); hnsw/optimizer/wal configs are left out. */
function collectionInfo({ dense, sparse, points, indexes }: Collection): Obj {
  const sparseParams = [...sparse].map(([name, idf]) => [name, idf ? { modifier: 'idf' } : {}]);
  const params = {
    vectors: dense.get('') ?? Object.fromEntries(dense),
    sparse_vectors: Object.fromEntries(sparseParams),
  };
  const schema = [...indexes].map(([key, type]) => [key, { data_type: type }]);
  const info = { status: 'green', optimizer_status: 'ok', points_count: points.size, segments_count: 1 };
  return { ...info, config: { params }, payload_schema: Object.fromEntries(schema) };
}

type Answer = (method: string, name: string, suffix: string, body: unknown, wait: boolean) => unknown;
/** The emulated server state and its routes; each answer is the `result` of Qdrant's response envelope. */
function emulatedQdrant(): Answer {
  const collections = new Map<string, Collection>();
  let operations = 0;
  const update = (wait: boolean, apply: (version: number) => void) => {
    apply(++operations);
    return { operation_id: operations, status: wait ? 'completed' : 'acknowledged' };
  };
  const upsert = (collection: Collection, raw: unknown, version: number) => {
    const { points } = fields(raw, ['points'], 'upsert');
    if (!Array.isArray(points)) throw notEmulated('the batch (columnar) form of points');
    const parsed = points.map((point) => parsePoint(collection, point, version)); // all valid before any write
    for (const point of parsed) collection.points.set(point.id, point);
  };
  /** overwrite_payload replaces the whole payload of existing points; an absent point is an error. */
  const overwritePayload = (collection: Collection, raw: unknown, version: number) => {
    const op = fields(raw, ['payload', 'points'], 'overwrite_payload');
    const payload = asObj(op['payload'], 'payload');
    if (!Array.isArray(op['points'])) throw notEmulated('overwrite_payload without a points list');
    for (const id of op['points']) {
      const point = collection.points.get(pointId(id));
      if (!point) throw httpError(404, `Not found: No point with id ${String(id)} found`);
      Object.assign(point, { payload: structuredClone(payload), version });
    }
  };
  type Route = (collection: Collection, body: unknown, wait: boolean) => unknown;
  const routes: Record<string, Route> = {
    'GET ': (collection) => collectionInfo(collection),
    'PUT /index': (collection, body, wait) => {
      const index = fields(body, ['field_name', 'field_schema'], 'index');
      const [key, schema] = [index['field_name'], index['field_schema']];
      if (typeof schema !== 'string') throw notEmulated('a field_schema other than a type name');
      path(key);
      return update(wait, () => collection.indexes.set(String(key), schema));
    },
    'PUT /points': (collection, body, wait) => update(wait, (version) => upsert(collection, body, version)),
    /** Retrieve by ids: the points that exist, each once. */
    'POST /points': (collection, body) => {
      const request = fields(body, ['ids', 'with_payload', 'with_vector'], 'point request');
      const select = payloadSelector(request['with_payload'], true);
      noVectors(request['with_vector']);
      if (!Array.isArray(request['ids'])) throw formatError('ids must be a list');
      const found = new Set(request['ids'].map((id) => collection.points.get(pointId(id))));
      return [...found].flatMap((point) =>
        point ? [{ id: point.id, payload: select(point.payload), vector: null }] : [],
      );
    },
    'POST /points/batch': (collection, body, wait) => {
      const operationList = list(fields(body, ['operations'], 'batch update')['operations']);
      return update(wait, (version) => {
        for (const op of operationList.map((raw) => asObj(raw, 'operation'))) {
          if (Object.keys(op).length !== 1) throw formatError('an operation has exactly one kind');
          if ('upsert' in op) upsert(collection, op['upsert'], version);
          else if ('overwrite_payload' in op) overwritePayload(collection, op['overwrite_payload'], version);
          else throw notEmulated(`batch operation ${Object.keys(op).join()}`);
        }
      });
    },
    'POST /points/delete': (collection, body, wait) => {
      const ids = list(fields(body, ['points'], 'delete points')['points']).map(pointId);
      return update(wait, () => ids.forEach((id) => collection.points.delete(id)));
    },
    /** Sorted by id from `offset` (inclusive); next_page_offset = the first id of the next page (points docs). */
    'POST /points/scroll': (collection, body) => {
      const request = fields(body, ['filter', 'limit', 'offset', 'with_payload', 'with_vector'], 'scroll');
      const keep = compileFilter(request['filter']);
      const select = payloadSelector(request['with_payload'], true);
      const limit = limitOf(request['limit']);
      const from = absent(request['offset']) ? '' : pointId(request['offset']); // '' sorts before every UUID
      noVectors(request['with_vector']);
      const page = [...collection.points.values()]
        .filter((point) => point.id >= from && keep(point))
        .sort(byId);
      const points = page
        .slice(0, limit)
        .map((point) => ({ id: point.id, payload: select(point.payload), vector: null }));
      return { points, next_page_offset: page[limit]?.id ?? null };
    },
    /** Prefetches fused by RRF, or one nearest search; payload is off by default here (QueryRequest schema). */
    'POST /points/query': (collection, body) => {
      const common = ['query', 'limit', 'with_payload', 'with_vector'];
      const fused = isObj(body) && 'prefetch' in body;
      const request = fields(body, fused ? ['prefetch', ...common] : ['using', 'filter', ...common], 'query');
      const select = payloadSelector(request['with_payload'], false);
      noVectors(request['with_vector']);
      const hits = fused ? fuse(collection, request) : nearest(collection, request);
      const points = hits.map(({ point, score }) => {
        return { id: point.id, version: point.version, score, payload: select(point.payload), vector: null };
      });
      return { points };
    },
  };
  return (method, name, suffix, body, wait) => {
    const key = `${method} ${suffix}`;
    if (key === 'GET /exists') return { exists: collections.has(name) };
    if (key === 'DELETE ') return collections.delete(name);
    if (key === 'PUT ') {
      if (collections.has(name)) throw httpError(409, `Wrong input: Collection \`${name}\` already exists!`);
      collections.set(name, createCollection(body));
      return true;
    }
    const route = routes[key];
    if (!route) throw notEmulated(`route ${method} /collections/{name}${suffix}`);
    const collection = collections.get(name);
    if (!collection) throw httpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return route(collection, body, wait);
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch (error) {
    throw formatError(String(error));
  }
}

/** Starts an emulator on 127.0.0.1 and a free port; every start has its own empty state. */
export async function start(): Promise<RunningQdrantEmulator> {
  const answer = emulatedQdrant();
  const requests: EmulatedRequest[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const began = performance.now();
    let status = 200;
    let reply: Obj;
    try {
      const url = new URL(req.url ?? '/', 'http://emulator');
      const method = req.method ?? 'GET';
      const body = await readJson(req);
      requests.push({ method, path: url.pathname, query: url.search, body });
      const [, name, suffix] = /^\/collections\/([^/]+)((?:\/[a-z]+)*)$/.exec(url.pathname) ?? [];
      const unknown = [...url.searchParams.keys()].filter((key) => key !== 'wait');
      if (name === undefined) throw notEmulated(`route ${method} ${url.pathname}`);
      if (unknown.length > 0) throw notEmulated(`query parameter(s) ${unknown.join(', ')}`);
      const wait = url.searchParams.get('wait') === 'true';
      reply = { result: answer(method, decodeURIComponent(name), suffix ?? '', body, wait), status: 'ok' };
    } catch (error) {
      const coded = error instanceof Error && 'status' in error && typeof error.status === 'number';
      status = coded ? Number(error.status) : 500;
      reply = { status: { error: error instanceof Error ? error.message : String(error) } };
    }
    const json = JSON.stringify({ ...reply, time: (performance.now() - began) / 1000 });
    res.writeHead(status, { 'content-type': 'application/json' }).end(json);
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections(); // the client's undici agent keeps connections alive
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close };
}
