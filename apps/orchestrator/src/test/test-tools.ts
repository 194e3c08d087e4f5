import { type Service, Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import { type Deferred, deferred } from '@novelrag/agenturn/testing';
import { busRequest } from '@novelrag/bus';
import {
  ApplyReply,
  InteractionReply,
  InteractionRequest,
  type JsonObject,
  MicroServiceNames,
  RuntimeEvent,
  SCHEMA_VERSION,
  Subjects,
  TOOL_QUEUE_GROUP,
  ToolInvocation,
  type ToolOutput,
  encodeToolMetadata,
} from '@novelrag/contracts';
import { z } from 'zod';

type Handler = (inv: ToolInvocation) => Promise<ToolOutput>;

/**
 * Tools served from the test process as a third-party NATS micro service (contract metadata, queue group), with the
 * runner's at-most-once behaviour: a repeated invocation id gets the recorded output back (`replayed`), so the tests can
 * count real executions per invocation id.
 */
export class TestTools {
  /** Every request received, in order (retries and replays included). */
  readonly received: ToolInvocation[] = [];
  /** Real executions per invocation id. */
  readonly executions = new Map<string, number>();
  private readonly recorded = new Map<string, ToolOutput>();
  /** Retries that arrived while the first execution still ran: they get its output when it ends. */
  private readonly pending = new Map<string, ((out: ToolOutput) => void)[]>();
  private waiters: { tool: string; d: Deferred<ToolInvocation> }[] = [];
  /** When set for a tool, its next execution waits for the gate before it answers (crash and cancel tests). */
  readonly gates = new Map<string, Deferred<void>>();
  private service: Service | undefined;

  constructor(private readonly nc: NatsConnection) {}

  async start(suffix: string): Promise<void> {
    this.service = await new Svcm(this.nc as never).add({
      name: MicroServiceNames.toolService(suffix),
      version: '1.0.0',
      queue: TOOL_QUEUE_GROUP,
    });
    this.add('create_character', 'Creates a character element', { name: { type: 'string' } }, (inv) =>
      this.createCharacter(inv),
    );
    this.add('slow', 'Runs until cancelled', {}, () => new Promise<ToolOutput>(() => undefined));
    this.add(
      'ask',
      'Asks the user to confirm',
      { question: { type: 'string' }, timeoutMs: { type: 'integer' } },
      (inv) => this.ask(inv),
    );
  }

  async stop(): Promise<void> {
    await this.service?.stop();
  }

  /** Resolves with the next invocation of `tool` (bounded by the caller's test timeout). */
  nextInvocation(tool: string): Promise<ToolInvocation> {
    const d = deferred<ToolInvocation>();
    this.waiters.push({ tool, d });
    return d.promise;
  }

  executionsOf(tool: string): number {
    return [...this.received]
      .filter((i) => i.tool === tool)
      .map((i) => i.invocationId)
      .filter((id, i, all) => all.indexOf(id) === i)
      .reduce((n, id) => n + (this.executions.get(id) ?? 0), 0);
  }

  private add(name: string, description: string, properties: JsonObject, handler: Handler): void {
    this.service!.addEndpoint(name, {
      subject: Subjects.toolInvoke(name),
      metadata: encodeToolMetadata({
        description,
        inputSchema: { type: 'object', properties, additionalProperties: false },
        timeoutMs: 30_000,
        readOnly: false,
        destructive: false,
        idempotent: false,
        schemaVersion: 1,
      }),
      handler: (_err, msg) => {
        const inv = ToolInvocation.parse(msg.json());
        this.received.push(inv);
        const matched = this.waiters.filter((w) => w.tool === inv.tool);
        this.waiters = this.waiters.filter((w) => w.tool !== inv.tool);
        matched.forEach((w) => w.d.resolve(inv));
        const reply = (out: ToolOutput) => msg.respond(JSON.stringify(out));
        const known = this.recorded.get(inv.invocationId);
        if (known) return reply({ ...known, replayed: true });
        if (this.executions.has(inv.invocationId)) {
          // Still running: the retry waits for the first execution's output, like a runner's claim.
          const waiting = this.pending.get(inv.invocationId) ?? [];
          waiting.push((out) => reply({ ...out, replayed: true }));
          this.pending.set(inv.invocationId, waiting);
          return;
        }
        this.executions.set(inv.invocationId, 1);
        void (async () => {
          const gate = this.gates.get(name);
          if (gate) {
            this.gates.delete(name);
            await gate.promise;
          }
          const out = await handler(inv).catch((e: unknown): ToolOutput => ({
            type: 'error',
            error: { code: 'TOOL_FAILED', message: String(e), retryable: false },
          }));
          this.recorded.set(inv.invocationId, out);
          reply(out);
          for (const r of this.pending.get(inv.invocationId) ?? []) r(out);
          this.pending.delete(inv.invocationId);
        })();
      },
    });
  }

  private async createCharacter(inv: ToolInvocation): Promise<ToolOutput> {
    const name = z.string().min(1).parse(inv.params['name']);
    await busRequest(
      this.nc,
      Subjects.resources.apply,
      {
        operations: [
          {
            type: 'splice',
            location: { uri: '/character', childrenKey: null },
            start: 0,
            end: 0,
            data: [{ id: name, properties: { name } }],
          },
        ],
        origin: { goalId: inv.goalId, tool: inv.tool, step: inv.step },
      },
      ApplyReply,
      { timeoutMs: 10_000 },
    );
    return { type: 'result', result: `created /character/${name}` };
  }

  private async ask(inv: ToolInvocation): Promise<ToolOutput> {
    const question = z.string().min(1).parse(inv.params['question']);
    const runtime = {
      schemaVersion: SCHEMA_VERSION,
      goalId: inv.goalId,
      invocationId: inv.invocationId,
      step: inv.step,
    };
    const at = new Date().toISOString();
    this.nc.publish(
      inv.runtimeSubject,
      JSON.stringify(RuntimeEvent.parse({ ...runtime, at, kind: 'progress', key: 'asked', value: '1' })),
    );
    this.nc.publish(
      inv.runtimeSubject,
      JSON.stringify(
        RuntimeEvent.parse({
          ...runtime,
          at,
          kind: 'backlog',
          content: { description: `follow up: ${question}` },
          priority: 3,
        }),
      ),
    );
    this.nc.publish(inv.runtimeSubject, '{"kind":"nonsense"}'); // dropped with a log line, nothing else
    const request = InteractionRequest.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: inv.goalId,
      invocationId: inv.invocationId,
      step: inv.step,
      kind: 'confirm',
      message: question,
      timeoutMs: z.number().int().optional().parse(inv.params['timeoutMs']) ?? 20_000,
    });
    const answer = await busRequest(this.nc, inv.interactSubject, request, InteractionReply, {
      timeoutMs: 25_000,
    });
    return { type: 'result', result: JSON.stringify(answer) };
  }
}
