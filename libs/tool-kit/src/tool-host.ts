import { type Service, type ServiceMsg, Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  Buckets,
  type ErrorEnvelope,
  MAX_MESSAGE_BYTES,
  MAX_TOOL_RESULT_CHARS,
  SCHEMA_VERSION,
  Subjects,
  TOOL_QUEUE_GROUP,
  ToolInvocation,
  ToolMetadata,
  type ToolOutput,
  type ToolsChanged,
  describeIssues,
  encodeToolMetadata,
  errorEnvelope,
  isToolServiceName,
  safeParseToolInvocation,
  toolResultsBucket,
} from '@novelrag/contracts';
import {
  type HeaderCarrier,
  Metrics,
  SpanKind,
  annotateActiveSpan,
  extractTraceContext,
  inSpan,
} from '@novelrag/telemetry';
import type { HostedTool } from './hosted-tool';
import { GoalCancellations } from './goal-cancellations';
import { IdempotentExecution, needsAtMostOnce } from './idempotent-execution';
import type { AskTiming } from './interaction-ask';
import { runInvocation } from './invocation-runner';
import { type HostLogger, silentLogger } from './logger';
import { errorOutput } from './outputs';
import { replyTo } from './replies';
import { compileParamValidator } from './param-validator';
import { type InvocationNotes, notesOf } from './invocation-notes';
import { KvToolResultStore, type ToolResultStore } from './result-store';

export interface ToolHostOptions {
  readonly connection: NatsConnection;
  /** Micro service name: `MicroServiceNames.tools` (built-in) or `MicroServiceNames.toolService(suffix)`. */
  readonly serviceName: string;
  /** SemVer; bump it when a tool's metadata changes (micro metadata is immutable). */
  readonly version: string;
  readonly description?: string;
  /** This process, in logs, claims and the service metadata. */
  readonly instanceId: string;
  readonly tools: readonly HostedTool[];
  /** Invocations run at once; more are refused with UNAVAILABLE (retryable), default 8. */
  readonly maxConcurrency?: number;
  /** Limit of a tool that declares none, default 120 s. */
  readonly defaultTimeoutMs?: number;
  /** Result size cap (never above MAX_TOOL_RESULT_CHARS). */
  readonly maxResultChars?: number;
  /**
   * Idempotency by invocation id (default on) in the KV bucket of this service's principal: `tool-results` for the
   * built-in `novelrag-tools`, `tool-results-<suffix>` for `novelrag-tools-<suffix>` (which the NATS config lets only
   * that principal write); `false` for stateless tools. Without
   * JetStream the host warns and serves without it, unless `required` (then `start()` fails).
   */
  readonly idempotency?:
    | false
    | {
        readonly bucket?: string;
        readonly ttlMs?: number;
        readonly leaseMs?: number;
        readonly required?: boolean;
        /** The store to use instead of opening the bucket (tests inject failures through it). */
        readonly store?: ToolResultStore;
        /** The invocations' notes; by default those of the opened bucket (none with an injected `store`). */
        readonly notes?: InvocationNotes;
      };
  /**
   * How a tool's question is kept alive while the human decides: re-sent every `renewMs` (default 2 s); when no
   * orchestrator listens for `orphanWaitMs` in a row (default 60 s) the call is given back as retryable.
   */
  readonly interactions?: AskTiming;
  readonly logger?: HostLogger;
  readonly now?: () => number;
}

interface Endpoint {
  readonly tool: HostedTool;
  readonly validate: ReturnType<typeof compileParamValidator>;
}

/**
 * Serves tools as NATS micro endpoints `novelrag.tools.<name>.invoke` in queue group `novelrag-tools` (so any number
 * of hosts share the load), with their metadata for `$SRV.INFO` discovery. Each request is a `ToolInvocation`,
 * answered with a `ToolOutput`; error outputs also carry the micro `Nats-Service-Error(-Code)` headers. Guarantees:
 * invocation and params validated first (VALIDATION_FAILED naming the field), a concurrency limit (UNAVAILABLE beyond
 * it), deadline and goal cancellation, a result size cap, at-most-once execution per invocation id (see
 * `IdempotentExecution`), and `stop()` that refuses new calls and lets those in flight finish (bounded).
 */
export class ToolHost {
  private service: Service | undefined;
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly inFlight = new Map<string, Promise<ToolOutput>>();
  private readonly tasks = new Set<Promise<void>>();
  private idempotent: IdempotentExecution | undefined;
  private notes: InvocationNotes | undefined;
  private readonly cancellations = new GoalCancellations();
  private active = 0;
  private closing = false;
  private readonly logger: HostLogger;
  private readonly now: () => number;

  constructor(private readonly options: ToolHostOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    for (const tool of options.tools) {
      if (this.endpoints.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
      ToolMetadata.parse(this.metadataOf(tool));
      this.endpoints.set(tool.name, { tool, validate: compileParamValidator(tool.name, tool.inputSchema) });
    }
  }

  /** Invocations running now. */
  get running(): number {
    return this.active;
  }

  async start(): Promise<void> {
    const { connection: nc, idempotency } = this.options;
    if (idempotency !== false) {
      try {
        const store =
          idempotency?.store ??
          (await KvToolResultStore.open(nc, {
            bucket: idempotency?.bucket ?? resultsBucketOf(this.options.serviceName),
            ...(idempotency?.ttlMs ? { ttlMs: idempotency.ttlMs } : {}),
          }));
        this.notes = idempotency?.notes ?? (store instanceof KvToolResultStore ? store.notes() : undefined);
        this.idempotent = new IdempotentExecution({
          store,
          runner: this.options.instanceId,
          leaseMs: idempotency?.leaseMs ?? 10_000,
          logger: this.logger,
          now: this.now,
        });
      } catch (err) {
        if (idempotency?.required) throw err;
        this.logger.warn('results are not recorded (no JetStream KV): a retried invocation runs again', {
          error: String(err),
        });
      }
    }
    this.cancellations.start(nc);
    const svc = await new Svcm(nc as never).add({
      name: this.options.serviceName,
      version: this.options.version,
      description: this.options.description ?? 'NovelRAG tools',
      // `claims`: an at-most-once call is claimed in the results bucket before it runs (the orchestrator re-sends a call
      // that no claim shows after a grace: it reached nobody, e.g. a runner killed as it arrived).
      metadata: {
        instance: this.options.instanceId,
        ...(this.idempotent ? { claims: 'true' } : {}),
      },
      queue: TOOL_QUEUE_GROUP,
    });
    this.service = svc;
    for (const { tool } of this.endpoints.values()) {
      const spanName = `execute_tool ${tool.name}`;
      const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name };
      svc.addEndpoint(tool.name, {
        subject: Subjects.toolInvoke(tool.name),
        queue: TOOL_QUEUE_GROUP,
        metadata: encodeToolMetadata(this.metadataOf(tool)),
        handler: (err, msg) => {
          if (err) return this.logger.warn('endpoint error', { tool: tool.name, error: err.message });
          const task = inSpan(
            spanName,
            {
              kind: SpanKind.SERVER,
              parent: extractTraceContext(msg.headers as unknown as HeaderCarrier | undefined),
              attributes,
            },
            () => this.onRequest(tool.name, msg),
          ).catch((e: unknown) =>
            this.logger.error('request handling failed', { tool: tool.name, error: String(e) }),
          );
          this.tasks.add(task);
          // Forgotten however it ends: `task` rejects when the logger throws in the `catch` above. One promise, as
          // `then` with both callbacks is (lighter than `finally`, which also passes a rejection on, unhandled).
          const forget = () => this.tasks.delete(task);
          void task.then(forget, forget);
        },
      });
    }
    await nc.flush(); // the endpoints are subscribed on the server before anyone is told they exist
    this.logger.info('tools served', {
      service: this.options.serviceName,
      tools: [...this.endpoints.keys()],
    });
    this.announce('up');
  }

  /** Tells orchestrators to rediscover now rather than at their next periodic refresh (best effort). */
  private announce(change: ToolsChanged['change']): void {
    const event: ToolsChanged = {
      schemaVersion: SCHEMA_VERSION,
      change,
      service: this.options.serviceName,
      instance: this.options.instanceId,
      tools: [...this.endpoints.keys()],
    };
    try {
      this.options.connection.publish(Subjects.toolsChanged, JSON.stringify(event));
    } catch (err) {
      this.logger.warn('tools change not announced', { change, error: String(err) });
    }
  }

  /**
   * Stops taking invocations (the endpoints leave the queue group, so callers' retries reach other hosts), then waits
   * up to `graceMs` for those in flight. Resolves with how many were still running when the grace ran out.
   */
  async stop(graceMs = 10_000): Promise<number> {
    this.closing = true;
    const wasServing = this.service !== undefined && !this.service.isStopped;
    await this.service?.stop().catch(() => undefined);
    if (wasServing) this.announce('down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.tasks]),
      new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    // Calls still running past the grace keep hearing their goal's cancellation until they end.
    void Promise.allSettled([...this.tasks]).then(() => this.cancellations.stop());
    return this.tasks.size;
  }

  private metadataOf(tool: HostedTool): ToolMetadata {
    return {
      description: tool.description,
      ...(tool.prerequisites ? { prerequisites: tool.prerequisites } : {}),
      ...(tool.outputDescription ? { outputDescription: tool.outputDescription } : {}),
      inputSchema: tool.inputSchema as ToolMetadata['inputSchema'],
      ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}),
      readOnly: tool.hints?.readOnly ?? false,
      destructive: tool.hints?.destructive ?? false,
      idempotent: tool.hints?.idempotent ?? false,
      schemaVersion: SCHEMA_VERSION,
    };
  }

  private async onRequest(name: string, msg: ServiceMsg): Promise<void> {
    const endpoint = this.endpoints.get(name);
    if (!endpoint)
      return replyTo(msg, this.logger, errorOutput(errorEnvelope('TOOL_NOT_FOUND', `no tool ${name}`)));
    if (this.closing)
      return replyTo(msg, this.logger, errorOutput(errorEnvelope('UNAVAILABLE', 'the runner is stopping')));
    const invocation = this.parse(name, msg);
    if ('code' in invocation) return replyTo(msg, this.logger, errorOutput(invocation));
    annotateActiveSpan({
      'novelrag.goal.id': invocation.goalId,
      'novelrag.step': invocation.step,
      'gen_ai.tool.call.id': invocation.invocationId,
    });
    const invalid = endpoint.validate(invocation.params);
    if (invalid) return replyTo(msg, this.logger, errorOutput(invalid));
    if (this.active >= (this.options.maxConcurrency ?? 8)) {
      return replyTo(
        msg,
        this.logger,
        errorOutput(errorEnvelope('UNAVAILABLE', `runner ${this.options.instanceId} is busy; retry`)),
      );
    }
    this.active += 1;
    let output: ToolOutput;
    const started = this.now();
    try {
      output = await this.serve(endpoint.tool, invocation);
    } catch (err) {
      // Only the bookkeeping can throw here (the KV is unreachable), and it does so before the tool runs (a run's own
      // failures are outputs): a retry is safe.
      this.logger.error('invocation not served', { tool: name, error: String(err) });
      output = errorOutput(errorEnvelope('UNAVAILABLE', 'the runner cannot record results right now; retry'));
    } finally {
      this.active -= 1;
    }
    Metrics.toolInvocations.inc({ tool: name, outcome: output.type === 'result' ? 'ok' : output.error.code });
    Metrics.toolDuration.observe({ tool: name }, (this.now() - started) / 1_000);
    replyTo(msg, this.logger, output);
  }

  private parse(name: string, msg: ServiceMsg): ToolInvocation | ErrorEnvelope {
    if (msg.data.length > MAX_MESSAGE_BYTES)
      return errorEnvelope('PAYLOAD_TOO_LARGE', 'invocation too large');
    let raw: unknown;
    try {
      raw = msg.json();
    } catch {
      return errorEnvelope('VALIDATION_FAILED', 'the invocation is not valid JSON');
    }
    const parsed = safeParseToolInvocation(raw); // refuses params nested too deep to check, never throws
    if (!parsed.success) {
      return errorEnvelope('VALIDATION_FAILED', `invalid invocation: ${describeIssues(parsed.error)}`);
    }
    if (parsed.data.tool !== name) {
      return errorEnvelope('VALIDATION_FAILED', `invocation for ${parsed.data.tool} sent to ${name}`);
    }
    return parsed.data;
  }

  private serve(tool: HostedTool, invocation: ToolInvocation): Promise<ToolOutput> {
    const local = this.inFlight.get(invocation.invocationId);
    if (local) return local.then((out) => ({ ...out, replayed: true }));
    const deadline = Math.min(
      invocation.deadline,
      this.now() + (tool.timeoutMs ?? this.options.defaultTimeoutMs ?? 120_000),
    );
    // `stop` aborts when another runner took the invocation over (see IdempotentExecution): the tool stops too.
    const atMostOnce = this.idempotent !== undefined && needsAtMostOnce(tool.hints);
    // Notes only for a call that runs at most once: only then is there one owner to write them.
    const notes = atMostOnce && this.notes ? notesOf(this.notes, invocation.invocationId) : undefined;
    const run = (stop?: AbortSignal) =>
      runInvocation(
        this.options.connection,
        tool,
        invocation,
        {
          deadline,
          maxResultChars: this.options.maxResultChars ?? MAX_TOOL_RESULT_CHARS,
          cancellations: this.cancellations,
          ...(stop ? { stop } : {}),
          ...(notes ? { notes } : {}),
          ...(this.options.interactions ? { asking: this.options.interactions } : {}),
        },
        this.logger,
        this.now,
      );
    // Read-only and idempotent tools skip the claim and the record (see needsAtMostOnce): no KV round trip.
    const pending =
      atMostOnce && this.idempotent ? this.idempotent.execute(invocation, deadline, run) : run();
    this.inFlight.set(invocation.invocationId, pending);
    const done = () => this.inFlight.delete(invocation.invocationId);
    // As `finally` does, with one promise instead of three.
    return pending.then(
      (output) => {
        done();
        return output;
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
  }
}

/** The results bucket of the principal serving `serviceName` (a name that is no tool service keeps the shared one). */
function resultsBucketOf(serviceName: string): string {
  return isToolServiceName(serviceName) ? toolResultsBucket(serviceName) : Buckets.toolResults;
}
