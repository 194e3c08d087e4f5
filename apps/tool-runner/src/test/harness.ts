import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ChatModel } from '@novelrag/agenturn';
import { busRequest } from '@novelrag/bus';
import { NunjucksPromptRenderer, findTemplatesRoot } from '@novelrag/llm';
import { ToolHost, type ToolHostOptions } from '@novelrag/tool-kit';
import {
  ApplyReply,
  InteractionRequest,
  MicroServiceNames,
  type ResourceOperation,
  SCHEMA_VERSION,
  type ServiceName,
  Subjects,
  ToolInvocation,
  ToolOutput,
  type ToolWorkspace,
} from '@novelrag/contracts';
import { uniqueName } from '@novelrag/testkit';
import type { z } from 'zod';
import { ToolLlm } from '../prompts/tool-llm';
import { NatsMemory, NatsResourceService, type ResourceService } from '@novelrag/resource-client';
import { builtinTools } from '../tools/builtin-tools';
import type { WebToolsConfig } from '../tools/web/web-config';
import { ROOT, type StartedProcess, startProcess } from './processes';

export { ROOT };

/** A resource-service OS process (from its dist) with its own embedded store under tmp/. */
export async function startResourceService(
  nc: NatsConnection,
  natsUrl: string,
): Promise<StartedProcess & { dataDir: string }> {
  const dataDir = path.join(ROOT, 'tmp', uniqueName('tool-runner-rs'));
  mkdirSync(dataDir, { recursive: true });
  const instanceId = uniqueName('rs');
  const proc = await startProcess(
    'apps/resource-service/dist/main.js',
    { NATS_URL: natsUrl, NOVELRAG_DATA_DIR: dataDir, NOVELRAG_INSTANCE_ID: instanceId },
    () => healthy(nc, 'resource-service', instanceId),
  );
  return {
    ...proc,
    dataDir,
    stop: async (signal?: NodeJS.Signals) => {
      await proc.stop(signal);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether one instance of a service answers its health subject. */
export async function healthy(
  nc: NatsConnection,
  service: ServiceName,
  instanceId: string,
): Promise<boolean> {
  const reply = await nc.request(Subjects.instanceHealth(service, instanceId), '{}', { timeout: 500 });
  return (reply.json() as { ok?: boolean; data?: { ok?: boolean } }).data?.ok === true;
}

/** Sends an invocation to a tool endpoint and parses the ToolOutput. */
export async function invokeTool(
  nc: NatsConnection,
  invocation: ToolInvocation,
  timeoutMs = 20_000,
): Promise<ToolOutput> {
  const msg = await nc.request(Subjects.toolInvoke(invocation.tool), JSON.stringify(invocation), {
    timeout: timeoutMs,
  });
  return ToolOutput.parse(msg.json());
}

export function toolInvocation(
  tool: string,
  params: Record<string, unknown>,
  options: {
    goalId?: string;
    workspace?: ToolWorkspace;
    deadlineMs?: number;
    lang?: string;
    attempt?: number;
    threadId?: string;
  } = {},
): ToolInvocation {
  const goalId = options.goalId ?? 'goal-tools';
  return ToolInvocation.parse({
    schemaVersion: SCHEMA_VERSION,
    invocationId: uniqueName('inv'),
    goalId,
    step: 0,
    tool,
    params,
    deadline: Date.now() + (options.deadlineMs ?? 30_000),
    runtimeSubject: Subjects.goalRuntime(goalId),
    interactSubject: Subjects.goalInteract(goalId),
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(options.lang ? { lang: options.lang } : {}),
    ...(options.attempt ? { attempt: options.attempt } : {}),
    ...(options.threadId ? { threadId: options.threadId } : {}),
  });
}

/** Plays the orchestrator's side of confirmations for one goal: records each request and answers with `answer`. */
export function serveInteractions(
  nc: NatsConnection,
  goalId: string,
  answer: (request: InteractionRequest) => unknown,
): { readonly requests: InteractionRequest[]; stop(): void } {
  const requests: InteractionRequest[] = [];
  const sub = nc.subscribe(Subjects.goalInteract(goalId), {
    callback: (_err, msg) => {
      const request = InteractionRequest.parse(msg.json());
      requests.push(request);
      msg.respond(JSON.stringify({ ok: true, data: answer(request) }));
    },
  });
  return { requests, stop: () => sub.unsubscribe() };
}

/** A resource-service request as a test makes it. */
export function resources<T>(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  schema: z.ZodType<T>,
): Promise<T> {
  return busRequest(nc, subject, payload, schema, { timeoutMs: 10_000 });
}

/** A ChatModel whose implementation a test swaps (one scripted model per test case). */
export class SwitchableChatModel implements ChatModel {
  constructor(public current: ChatModel) {}
  structured: ChatModel['structured'] = (options) => this.current.structured(options);
  callTools: ChatModel['callTools'] = (options) => this.current.callTools(options);
  text: ChatModel['text'] = (options) => this.current.text(options);
  stream: ChatModel['stream'] = (options) => this.current.stream(options);
}

/** Writes operations directly (seed data of a test, not through a tool). */
export function applyOperations(nc: NatsConnection, operations: ResourceOperation[]): Promise<ApplyReply> {
  return resources(nc, Subjects.resources.apply, { operations }, ApplyReply);
}

/** The built-in tools (or the named ones) hosted in this process with the given model, as the runner hosts them. */
export async function hostBuiltinTools(
  nc: NatsConnection,
  model: ChatModel,
  options: {
    readonly instanceId: string;
    readonly random: () => number;
    readonly only?: readonly string[];
    readonly web?: WebToolsConfig;
    /** At-most-once settings (default: a fresh bucket); tests inject a crashing store through it. */
    readonly idempotency?: ToolHostOptions['idempotency'];
    /** Wraps the resource-service the tools use (tests inject a crash into a write through it). */
    readonly resources?: (service: ResourceService) => ResourceService;
  },
): Promise<ToolHost> {
  const service = new NatsResourceService(nc, { timeoutMs: 10_000 });
  const tools = builtinTools({
    resources: options.resources ? options.resources(service) : service,
    memory: new NatsMemory(nc, { timeoutMs: 10_000 }),
    llm: new ToolLlm(model, new NunjucksPromptRenderer({ root: findTemplatesRoot() })),
    random: options.random,
    web: options.web ?? { allowPrivate: false, timeoutMs: 10_000, maxBytes: 1024 * 1024 },
  }).filter((t) => options.only === undefined || options.only.includes(t.name));
  const host = new ToolHost({
    connection: nc,
    serviceName: MicroServiceNames.tools,
    version: '1.0.0',
    instanceId: options.instanceId,
    tools,
    idempotency: options.idempotency ?? { bucket: uniqueName('results') },
  });
  await host.start();
  return host;
}
