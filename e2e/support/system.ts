import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { busRequest } from '@novelrag/bus';
import {
  FINAL_TRACE_KINDS,
  OperationsListReply,
  type ServiceName,
  Subjects,
  TraceEvent,
} from '@novelrag/contracts';
import {
  FakeOpenAIServer,
  type FakeReply,
  type RecordedRequest,
  freePort,
  startNats,
  type NatsServerHandle,
} from '@novelrag/testkit';
import { ROOT, buildServices, startServiceProcess, type ServiceProcess } from './processes';

/** A rule of tools/demo/scenario.json (see tools/demo/scripted-llm.mjs): matched per request, first match wins. */
export interface ScenarioRule {
  readonly id?: string;
  readonly when?: {
    readonly schema?: string;
    readonly tool?: string;
    readonly contains?: readonly string[];
    readonly absent?: readonly string[];
    readonly anyOf?: readonly string[];
  };
  readonly reply: {
    readonly json?: unknown;
    readonly text?: string;
    readonly content?: string;
    readonly toolCall?: { readonly name: string; readonly arguments: unknown };
  };
}

/** A rule that answers the action decision (the call offering `Finalize`) of matching prompts with a tool call. */
export const decide = (
  id: string,
  contains: string[],
  name: string,
  args: Record<string, unknown>,
): ScenarioRule => ({
  id,
  when: { tool: 'Finalize', contains },
  reply: { content: `deciding ${id}`, toolCall: { name, arguments: args } },
});

/** A rule that finishes matching goals successfully with `response`. */
export const finalize = (id: string, contains: string[], response: string): ScenarioRule =>
  decide(id, contains, 'Finalize', { status: 'success', response, evidence: [], gaps: [] });

export const DEMO_SCENARIO = JSON.parse(
  readFileSync(path.join(ROOT, 'tools/demo/scenario.json'), 'utf8'),
) as { rules: ScenarioRule[] };

function messagesText(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
  return messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
}

function toReply(reply: ScenarioRule['reply']): FakeReply {
  if (reply.toolCall)
    return {
      toolCalls: [{ name: reply.toolCall.name, arguments: reply.toolCall.arguments }],
      ...(reply.content ? { content: reply.content } : {}),
    };
  if (reply.text !== undefined) return { text: reply.text };
  return { json: reply.json };
}

/**
 * Installs scenario rules on the fake OpenAI server with the same matching as the offline demo's scripted model (so
 * the e2e suites also prove the recorded demo scenario), each answering any number of times, in order.
 */
export function installRules(fake: FakeOpenAIServer, rules: readonly ScenarioRule[]): void {
  for (const rule of rules) {
    const when = rule.when ?? {};
    const where = (r: RecordedRequest) => {
      const text = messagesText(r.body);
      if ((when.contains ?? []).some((s) => !text.includes(s))) return false;
      if ((when.absent ?? []).some((s) => text.includes(s))) return false;
      return !when.anyOf || when.anyOf.some((s) => text.includes(s));
    };
    fake.always(
      {
        ...(when.schema ? { schemaName: when.schema } : {}),
        ...(when.tool
          ? { toolNames: (names: readonly string[]) => names.includes(when.tool ?? '') }
          : when.schema
            ? {}
            : { kind: 'text' as const }),
        where,
      },
      toReply(rule.reply),
    );
  }
}

export interface SseEvent {
  readonly id: string;
  readonly event: TraceEvent;
}

export interface System {
  readonly nats: NatsServerHandle;
  readonly nc: NatsConnection;
  readonly fake: FakeOpenAIServer;
  readonly url: string;
  readonly processes: ServiceProcess[];
  readonly env: (extra?: Record<string, string>) => Record<string, string>;
  start(app: ServiceName, instanceId: string, extra?: Record<string, string>): Promise<ServiceProcess>;
  http(route: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Follows a goal's SSE until its final event (or `until` says stop, which drops the connection), bounded. */
  events(
    goalId: string,
    options?: { lastEventId?: string; until?: (e: SseEvent) => boolean; timeoutMs?: number },
  ): Promise<SseEvent[]>;
  /** A separate OS process (e.g. the third-party tool example). */
  spawnProcess(script: string, env: Record<string, string>): ChildProcess;
  stop(): Promise<void>;
}

const children: ChildProcess[] = [];

/** Starts a separate OS process from a compiled script (killed by System.stop). */
export function spawnProcess(script: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [path.join(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.push(child);
  return child;
}

/**
 * The whole system as OS processes on a private NATS, the model faked at the HTTP boundary: resource-service,
 * `runners` tool-runners, an orchestrator and the gateway, started in dependency order like `npm start`.
 */
export async function startSystem(
  label: string,
  options: {
    runners?: number;
    beforeOrchestrator?: (natsUrl: string) => Promise<void>;
    /** Extra environment for every service. */
    env?: Record<string, string>;
  } = {},
): Promise<System> {
  const runners = options.runners ?? 1;
  buildServices();
  const nats = await startNats({ privateServer: true });
  const nc = await connect({ servers: nats.url });
  const fake = await FakeOpenAIServer.start();
  const dataDir = await mkdtemp(path.join(tmpdir(), `novelrag-${label}-`));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const processes: ServiceProcess[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    NATS_URL: nats.url,
    NOVELRAG_DATA_DIR: dataDir,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'e2e-key',
    NOVELRAG_MODEL: 'fake-model',
    NOVELRAG_GOAL_ACK_WAIT_MS: '3000',
    NOVELRAG_THREAD_LEASE_MS: '2000',
    NOVELRAG_TOOL_REFRESH_MS: '1000',
    NOVELRAG_TOOL_LEASE_MS: '2000',
    NOVELRAG_SHUTDOWN_GRACE_MS: '3000',
    NOVELRAG_AUTH_DISABLED: 'true',
    PORT: String(port),
    ...options.env,
    ...extra,
  });
  const start = async (app: ServiceName, instanceId: string, extra: Record<string, string> = {}) => {
    const p = await startServiceProcess(app, instanceId, env(extra));
    processes.push(p);
    return p;
  };
  await start('resource-service', `${label}-rs`);
  for (let i = 1; i <= runners; i++) await start('tool-runner', `${label}-runner-${i}`);
  await options.beforeOrchestrator?.(nats.url);
  await start('orchestrator', `${label}-orch-1`);
  await start('gateway', `${label}-gw`);

  const http = async (route: string, init: RequestInit = {}) => {
    let res: Response;
    try {
      res = await fetch(`${url}${route}`, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw await diagnose(err, processes);
    }
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

  const events: System['events'] = async (goalId, options = {}) => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 60_000);
    const out: SseEvent[] = [];
    try {
      let res: Response;
      // Like any SSE client: a 503/504 (the bus busy or reconnecting) is tried again after its Retry-After.
      for (let attempt = 1; ; attempt++) {
        res = await fetch(`${url}/v1/goals/${goalId}/events`, {
          headers: options.lastEventId ? { 'last-event-id': options.lastEventId } : {},
          signal: abort.signal,
        });
        if ((res.status !== 503 && res.status !== 504) || attempt >= 10) break;
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 1_000 * Number(res.headers.get('retry-after') ?? '1')));
      }
      if (!res.ok || !res.body) throw new Error(`SSE answered ${res.status}`);
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return out;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const field = (name: string) =>
            block
              .split('\n')
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2);
          const kind = field('event');
          if (kind === 'end') return out;
          const id = field('id');
          const data = field('data');
          if (!id || !data) continue;
          const item = { id, event: TraceEvent.parse(JSON.parse(data)) };
          out.push(item);
          if (options.until?.(item)) return out;
          if (FINAL_TRACE_KINDS.includes(item.event.kind)) return out;
        }
      }
    } catch (err) {
      if (abort.signal.aborted)
        throw new Error(`SSE of ${goalId} did not end in time; got ${out.length} events`);
      throw await diagnose(err, processes);
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  };

  return {
    nats,
    nc,
    fake,
    url,
    processes,
    env,
    start,
    http,
    events,
    spawnProcess,
    stop: async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      for (const p of [...processes].reverse()) await p.stop('SIGKILL');
      await fake.close();
      await nc.close();
      await nats.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const exited = (p: ServiceProcess) => p.child.exitCode !== null || p.child.signalCode !== null;

/** "message (cause: message, code)" for an error and its causes; fetch's errors come from another realm than Jest's. */
function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (typeof e !== 'object') {
      parts.push(String(e));
      break;
    }
    const { name, message, code, cause } = e as {
      name?: unknown;
      message?: unknown;
      code?: unknown;
      cause?: unknown;
    };
    parts.push([name, message, code].filter((x) => typeof x === 'string' && x).join(': '));
    e = cause;
  }
  return parts.join(' <- caused by ');
}

/**
 * A failed connection to the gateway usually means a service died: after a moment for exits to be observed, names
 * every service process that exited (with the end of its output) and otherwise shows the gateway's own last output,
 * so the failure explains itself.
 */
async function diagnose(err: unknown, processes: readonly ServiceProcess[]): Promise<Error> {
  await new Promise((r) => setTimeout(r, 300));
  const dead = processes.filter(exited);
  const shown = dead.length > 0 ? dead : processes.filter((p) => p.name.endsWith('-gw'));
  const report = shown
    .map((p) => {
      const how = exited(p)
        ? `exited (${p.child.signalCode ?? `code ${p.child.exitCode}`})`
        : 'still running';
      return `--- ${p.name} (pid ${p.child.pid}) ${how}; last output:\n${p.output().slice(-3_000)}`;
    })
    .join('\n');
  return new Error(`${describeError(err)}\n${report}`, { cause: err });
}

/** Submits a goal over REST and returns its id. */
export async function submitGoal(system: System, body: Record<string, unknown>): Promise<string> {
  const res = await system.http('/v1/goals', { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
  return String(res.body['goalId']);
}

/** Answers every confirmation of a goal over REST as it appears in the SSE (approve unless `approve` says no). */
export async function followAnswering(
  system: System,
  goalId: string,
  approve = true,
  timeoutMs = 60_000,
): Promise<SseEvent[]> {
  const all: SseEvent[] = [];
  let last: string | undefined;
  for (;;) {
    const batch = await system.events(goalId, {
      ...(last ? { lastEventId: last } : {}),
      until: (e) => e.event.kind === 'interaction.requested',
      timeoutMs,
    });
    all.push(...batch);
    const tail = batch[batch.length - 1];
    if (!tail) return all;
    last = tail.id;
    if (tail.event.kind !== 'interaction.requested') return all;
    const iid = tail.event.interaction.interactionId;
    const answer = await system.http(`/v1/goals/${goalId}/interactions/${iid}`, {
      method: 'POST',
      body: JSON.stringify({ approved: approve }),
    });
    if (answer.status !== 200)
      throw new Error(`answer answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}

/** A model answer to AspectCreateTool's metadata prompt: a minimal aspect draft. */
export const aspectDraft = (description: string) => ({
  description,
  children_keys: [],
  dependencies: [],
  required_fields: [{ name: 'name', type: 'string', description: 'display name' }],
  optional_fields: [],
  extensibility: { description: 'free', examples: [] },
  constraints: [],
  extra_sections: [],
});

/** The demo scenario's request (the 余归 goal of the seeds). */
export const DEMO_REQUEST = 'Create a protagonist named 余归 and link her to the Azure Sect';

/**
 * Makes AspectCreateTool's model call for the aspect whose prompt mentions `marker` answer after 3 s (once), so a
 * crash can land while a runner works on that step; resolves when that call arrives.
 */
export function holdAspectAnswer(fake: FakeOpenAIServer, marker: string, description: string): Promise<void> {
  return new Promise((resolve) => {
    fake.once(
      { schemaName: 'aspect_metadata', where: (r) => JSON.stringify(r.body).includes(marker) },
      () => {
        resolve();
        return { delayMs: 3_000, then: { json: aspectDraft(description) } };
      },
    );
  });
}

/**
 * The demo goal ended completed, with its four steps successful, and each step's writes applied once: one operation for
 * an aspect step, one group of distinct operations for a write or relation step (a second application would repeat
 * them), read from the repository's operation history.
 */
export async function expectDemoCompletedOnce(system: System, goalId: string): Promise<void> {
  const goal = await system.http(`/v1/goals/${goalId}`);
  expect(goal.body['status']).toBe('completed');
  const steps = goal.body['steps'] as {
    plan: { tool: string };
    outcome: { status: string; invocationId: string };
  }[];
  expect(steps.map((s) => [s.plan.tool, s.outcome.status])).toEqual([
    ['AspectCreateTool', 'success'],
    ['AspectCreateTool', 'success'],
    ['ResourceWriteTool', 'success'],
    ['ResourceRelationWriteTool', 'success'],
  ]);
  const history = await busRequest(
    system.nc,
    Subjects.resources.operations,
    { limit: 100 },
    OperationsListReply,
    {
      timeoutMs: 5_000,
    },
  );
  for (const step of steps) {
    const id = step.outcome.invocationId;
    const writes = history.entries.filter((e) => e.group === id).map((e) => JSON.stringify(e.operation));
    expect({ id, distinct: new Set(writes).size }).toEqual({ id, distinct: writes.length });
    if (step.plan.tool === 'AspectCreateTool') expect(writes).toHaveLength(1);
  }
}
