import type {
  AgentKind,
  AspectsListReply,
  FindReply,
  GoalSummaryPage,
  OperationsListReply,
  SearchReply,
  ServicesReply,
  ToolCatalogue,
  PublicGoal,
  UndoRedoReply,
} from '@novelrag/contracts';

/** The dashboard's client of the public REST API (types from the same contracts the gateway documents). */
const KEY_STORAGE = 'novelrag.apiKey';

export type { DiscoveredTool, PublicGoal } from '@novelrag/contracts';

export interface GoalSubmissionBody {
  /** The agent kind that pursues it (absent: `novelrag`). */
  agent?: AgentKind;
  request?: string;
  goal?: string;
  threadId?: string;
  lang?: string;
  beliefs?: string[];
  limits?: { maxSteps?: number; maxIterations?: number; wallClockMs?: number; tokenBudget?: number };
}

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

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { ...authHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : {};
  if (!res.ok) {
    const err = parsed as { code?: string; message?: string };
    throw new ApiError(res.status, err.code ?? `HTTP_${res.status}`, err.message ?? res.statusText);
  }
  return parsed as T;
}

const query = (params: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};
const enc = encodeURIComponent;

export const api = {
  summaries: (p: { status?: string; agent?: string; threadId?: string; limit?: number; cursor?: string }) =>
    call<GoalSummaryPage>('GET', `/v1/goal-summaries${query(p)}`),
  goal: (id: string) => call<PublicGoal>('GET', `/v1/goals/${enc(id)}`),
  submit: (body: GoalSubmissionBody) => call<{ goalId: string; status: string }>('POST', '/v1/goals', body),
  cancel: (id: string) => call<PublicGoal>('POST', `/v1/goals/${enc(id)}/cancel`),
  answer: (id: string, interactionId: string, body: { approved: boolean } | { text: string }) =>
    call<{ accepted: true }>('POST', `/v1/goals/${enc(id)}/interactions/${enc(interactionId)}`, body),
  tools: () => call<ToolCatalogue>('GET', '/v1/tools'),
  services: () => call<ServicesReply>('GET', '/v1/services'),
  aspects: () => call<AspectsListReply>('GET', '/v1/aspects'),
  resource: (uri: string) => call<FindReply>('GET', `/v1/resources${query({ uri })}`),
  search: (q: string, aspect?: string) =>
    call<SearchReply>('POST', '/v1/resources/search', { query: q, limit: 20, ...(aspect ? { aspect } : {}) }),
  operations: () => call<OperationsListReply>('GET', '/v1/operations?limit=20'),
  undo: () => call<UndoRedoReply>('POST', '/v1/undo'),
  redo: () => call<UndoRedoReply>('POST', '/v1/redo'),
};
