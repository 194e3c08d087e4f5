import type { components, paths } from './api-types.generated';

/**
 * The dashboard's client of the public REST API, typed by the gateway's OpenAPI document (`api-types.generated.ts`,
 * generated from it by `npm run docs:generate`): a route, its parameters, its body and its reply are what the document
 * says, so an API change that breaks the dashboard fails `npm run typecheck`.
 */
const KEY_STORAGE = 'novelrag.apiKey';

type Schemas = components['schemas'];
export type PublicGoal = Schemas['PublicGoal'];
export type DiscoveredTool = Schemas['ToolCatalogue']['tools'][number];
export type GoalSummary = Schemas['GoalSummary'];

type Method = 'get' | 'post' | 'delete';
/** Routes that have an operation for the method. */
type RouteOf<M extends Method> = { [P in keyof paths]: paths[P][M] extends object ? P : never }[keyof paths];
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of the operation's 2xx replies. */
type Reply<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R]
    : never;
/** The parameters and body the operation takes (each present only when the document has it). */
type Input<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: infer Params; requestBody?: infer Body }
    ? (Params extends { path: infer Path } ? { path: Path } : { path?: never }) &
        (Params extends { query?: infer Q }
          ? [Q] extends [never]
            ? { query?: never }
            : { query?: Q }
          : object) &
        ([Body] extends [never]
          ? { body?: never }
          : undefined extends Body
            ? { body?: JsonOf<Body> }
            : { body: JsonOf<Body> })
    : never;

export type GoalSubmissionBody = Input<'/v1/goals', 'post'>['body'];

/** An error answer of the API: `{code, message, details?}` and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  set: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

export function authHeaders(): Record<string, string> {
  const key = apiKey.get();
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** One operation of the document: fills the path, builds the query string, sends the body, types the reply. */
async function call<M extends Method, P extends RouteOf<M>>(
  method: M,
  route: P,
  input: Input<P, M> = {} as Input<P, M>,
): Promise<Reply<P, M>> {
  const { path, query, body } = input as { path?: object; query?: object; body?: unknown };
  let url: string = route;
  for (const [name, value] of Object.entries(path ?? {}))
    url = url.replace(`{${name}}`, encodeURIComponent(String(value)));
  const res = await fetch(url + queryString(query ?? {}), {
    method: method.toUpperCase(),
    headers: { ...authHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : {};
  if (!res.ok) {
    const err = parsed as Partial<Schemas['ErrorBody']>;
    throw new ApiError(res.status, err.code ?? `HTTP_${res.status}`, err.message ?? res.statusText);
  }
  return parsed as Reply<P, M>;
}

function queryString(params: object): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export type SummaryFilters = NonNullable<Input<'/v1/goal-summaries', 'get'>['query']>;

export const api = {
  summaries: (query: SummaryFilters) => call('get', '/v1/goal-summaries', { query }),
  goal: (id: string) => call('get', '/v1/goals/{id}', { path: { id } }),
  submit: (body: GoalSubmissionBody) => call('post', '/v1/goals', { body }),
  cancel: (id: string) => call('post', '/v1/goals/{id}/cancel', { path: { id } }),
  answer: (id: string, iid: string, body: Input<'/v1/goals/{id}/interactions/{iid}', 'post'>['body']) =>
    call('post', '/v1/goals/{id}/interactions/{iid}', { path: { id, iid }, body }),
  tools: () => call('get', '/v1/tools'),
  services: () => call('get', '/v1/services'),
  aspects: () => call('get', '/v1/aspects'),
  resource: (uri: string) => call('get', '/v1/resources', { query: { uri } }),
  search: (query: string, aspect?: string) =>
    call('post', '/v1/resources/search', { body: { query, limit: 20, ...(aspect ? { aspect } : {}) } }),
  operations: () => call('get', '/v1/operations', { query: { limit: 20 } }),
  undo: () => call('post', '/v1/undo'),
  redo: () => call('post', '/v1/redo'),
};
