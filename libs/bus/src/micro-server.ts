import {
  BaseRpcContext,
  type CustomTransportStrategy,
  type MessageHandler,
  Server,
} from '@nestjs/microservices';
import type { MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import { type Service, type ServiceMsg, Svcm } from '@nats-io/services';
import { ERROR_CODE_INFO, MAX_MESSAGE_BYTES, errorEnvelope } from '@novelrag/contracts';
import { lastValueFrom } from 'rxjs';
import { toErrorEnvelope } from './errors';
import type { ContextLogger } from './logger';
import { inReceiveSpan } from './trace-headers';

/** Options a `@MessagePattern(subject, extras)` handler may carry for its micro endpoint. */
export interface EndpointExtras {
  /** Endpoint name in `$SRV.INFO` (defaults to the subject with dots replaced). */
  readonly endpoint?: string;
  /** Endpoint metadata (strings only, immutable once registered). */
  readonly metadata?: Record<string, string>;
  /** Queue group (default: the service's group, `q`). For per-instance subjects the group does not matter. */
  readonly queue?: string;
}

/** The RPC context handed to handlers (`@Ctx() ctx: NatsMicroContext`). */
export class NatsMicroContext extends BaseRpcContext<[string, MsgHdrs | undefined]> {
  getSubject(): string {
    return this.args[0];
  }
  getHeaders(): MsgHdrs | undefined {
    return this.args[1];
  }
  header(name: string): string | undefined {
    return this.args[1]?.get(name) || undefined;
  }
}

export interface NatsMicroServerOptions {
  readonly connection: NatsConnection;
  /** Micro service name (`A-Za-z0-9-_`), e.g. `novelrag-resources`. */
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly metadata?: Record<string, string>;
  /** Default queue group of the endpoints (one instance answers each request). */
  readonly queue?: string;
  /** How long `close()` waits for handlers in flight. */
  readonly gracePeriodMs?: number;
  readonly logger: ContextLogger;
}

/**
 * A Nest transport strategy on the NATS micro protocol (ADR-32): every `@MessagePattern(subject)` becomes an endpoint
 * of one micro service (discoverable with `$SRV.INFO`, load-balanced by queue group), every `@EventPattern(subject)`
 * a plain subscription. Requests and replies are plain JSON without Nest's envelope, so any NATS client in any language
 * can call them: the reply is `{ok: true, data}` or `{ok: false, error: {code, message, retryable, details?}}`, the
 * latter also flagged with the micro `Nats-Service-Error` / `Nats-Service-Error-Code` headers.
 */
export class NatsMicroServer extends Server implements CustomTransportStrategy {
  private service: Service | undefined;
  private readonly subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private closing = false;

  constructor(private readonly options: NatsMicroServerOptions) {
    super();
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    this.start().then(
      () => callback(),
      (err: unknown) => callback(err),
    );
  }

  private async start(): Promise<void> {
    const { connection: nc, name, version, description, metadata, queue } = this.options;
    // @nats-io/services pins its own nats-core build; the connection object is the same at runtime.
    const svc = await new Svcm(nc as never).add({
      name,
      version,
      description,
      metadata: metadata ?? {},
      ...(queue !== undefined ? { queue } : {}),
    });
    this.service = svc;
    for (const [pattern, handler] of this.messageHandlers) {
      const extras = (handler.extras ?? {}) as EndpointExtras;
      if (handler.isEventHandler) {
        const sub = nc.subscribe(pattern, {
          ...(extras.queue ? { queue: extras.queue } : {}),
          callback: (err, msg) => {
            if (err)
              return this.options.logger.warn('event subscription error', {
                subject: pattern,
                error: err.message,
              });
            this.track(
              inReceiveSpan('event', pattern, msg.headers, () =>
                this.onEvent(pattern, msg.subject, msg.headers, msg.data, handler),
              ),
            );
          },
        });
        this.subscriptions.push(sub);
        continue;
      }
      svc.addEndpoint(extras.endpoint ?? pattern.replace(/[^A-Za-z0-9_-]/g, '_'), {
        subject: pattern,
        metadata: extras.metadata ?? {},
        ...(extras.queue !== undefined ? { queue: extras.queue } : {}),
        handler: (err, msg) => {
          if (err)
            return this.options.logger.warn('endpoint error', { subject: pattern, error: err.message });
          this.track(
            inReceiveSpan('request', pattern, msg.headers as unknown as MsgHdrs | undefined, () =>
              this.onRequest(msg, handler),
            ),
          );
        },
      });
    }
    // Ready must mean reachable: the server has processed every subscription once the flush's PONG is back (a request
    // from another connection right after start would otherwise find no responders).
    await nc.flush();
    this.options.logger.info('micro service started', { name, endpoints: svc.info().endpoints.length });
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async onRequest(msg: ServiceMsg, handler: MessageHandler): Promise<void> {
    if (this.closing) {
      this.replyError(msg, errorEnvelope('UNAVAILABLE', 'service is shutting down'));
      return;
    }
    if (msg.data.length > MAX_MESSAGE_BYTES) {
      this.replyError(msg, errorEnvelope('PAYLOAD_TOO_LARGE', `payload exceeds ${MAX_MESSAGE_BYTES} bytes`));
      return;
    }
    let data: unknown = {};
    if (msg.data.length > 0) {
      try {
        data = msg.json();
      } catch {
        this.replyError(msg, errorEnvelope('VALIDATION_FAILED', 'payload is not valid JSON'));
        return;
      }
    }
    try {
      const ctx = new NatsMicroContext([msg.subject, msg.headers as unknown as MsgHdrs | undefined]);
      const result = await lastValueFrom(this.transformToObservable(await handler(data, ctx)), {
        defaultValue: null,
      });
      msg.respond(JSON.stringify({ ok: true, data: result ?? null }));
    } catch (err) {
      const envelope = toErrorEnvelope(err);
      if (envelope.code === 'INTERNAL') {
        this.options.logger.error('handler failed', { subject: msg.subject, error: describe(err) });
      }
      this.replyError(msg, envelope);
    }
  }

  private async onEvent(
    pattern: string,
    subject: string,
    headers: MsgHdrs | undefined,
    raw: Uint8Array,
    handler: MessageHandler,
  ): Promise<void> {
    let data: unknown;
    try {
      data = raw.length ? JSON.parse(new TextDecoder().decode(raw)) : {};
    } catch {
      this.options.logger.warn('dropped an event that is not JSON', { subject });
      return;
    }
    try {
      const ctx = new NatsMicroContext([subject, headers]);
      await lastValueFrom(this.transformToObservable(await handler(data, ctx)), { defaultValue: null });
    } catch (err) {
      this.options.logger.warn('event handler failed', { subject: pattern, error: describe(err) });
    }
  }

  private replyError(msg: ServiceMsg, error: ReturnType<typeof errorEnvelope>): void {
    const status = ERROR_CODE_INFO[error.code].httpStatus;
    msg.respondError(
      status,
      // A header value may not contain line breaks (NATS throws and the caller would wait for its timeout).
      `${error.code}: ${error.message}`.replace(/[\r\n]+/g, ' ').slice(0, 256),
      JSON.stringify({ ok: false, error }),
    );
  }

  /** Stops taking requests, then waits (bounded) for those in flight. The connection belongs to the caller. */
  async close(): Promise<void> {
    this.closing = true;
    for (const sub of this.subscriptions) sub.unsubscribe();
    await this.service?.stop().catch(() => null);
    const grace = this.options.gracePeriodMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((r) => {
        timer = setTimeout(r, grace);
      }),
    ]);
    clearTimeout(timer);
  }

  on(): never {
    throw new Error('NatsMicroServer does not support on(); use the connection status');
  }

  unwrap<T>(): T {
    return this.options.connection as T;
  }
}

function describe(err: unknown): string {
  return err instanceof Error
    ? `${err.name}: ${err.message}`
    : typeof err === 'object'
      ? JSON.stringify(err)
      : String(err);
}
