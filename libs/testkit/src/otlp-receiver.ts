import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttributeValue = string | number | boolean | readonly (string | number | boolean)[];

/** One received span, flattened (ids in hex as OTLP/JSON sends them). */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP span kind number (1 internal, 2 server, 3 client, 4 producer, 5 consumer). */
  readonly kind: number;
  /** `service.name` of the process that sent it. */
  readonly service: string;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** OTLP status code (0 unset, 1 ok, 2 error). */
  readonly status: number;
}

interface Waiter {
  readonly test: (spans: readonly ReceivedSpan[]) => boolean;
  readonly resolve: () => void;
}

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for tests: accepts `POST /v1/traces` with JSON bodies (gzip or not), as the
 * services' OTLP/HTTP exporter sends them, and keeps every span.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Bodies that could not be read (a test should expect none). */
  readonly rejected: string[] = [];
  private readonly waiters = new Set<Waiter>();
  private server: Server | undefined;
  private port = 0;

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    const server = createServer((req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.server = server;
    receiver.port = (server.address() as AddressInfo).port;
    return receiver;
  }

  /** The value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Resolves once `test` holds for the spans received so far (checked now and after every export); rejects after
   * `timeoutMs` with `what` in the message.
   */
  waitFor(
    what: string,
    test: (spans: readonly ReceivedSpan[]) => boolean,
    timeoutMs = 60_000,
  ): Promise<void> {
    if (test(this.spans)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(`OTLP receiver: ${what} not seen within ${timeoutMs} ms (${this.spans.length} spans)`),
        );
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        const raw = Buffer.concat(chunks);
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        this.spans.push(...flatten(JSON.parse(body.toString('utf8')) as OtlpBody));
      } catch (err) {
        this.rejected.push(String(err));
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const w of [...this.waiters]) {
        if (!w.test(this.spans)) continue;
        this.waiters.delete(w);
        w.resolve();
      }
    });
  }
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
}
interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function valueOf(v: OtlpValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return (v.arrayValue?.values ?? []).map((x) => valueOf(x) as string | number | boolean);
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

function flatten(body: OtlpBody): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind ?? 0,
          service,
          attributes: attributesOf(s.attributes),
          status: s.status?.code ?? 0,
        });
      }
    }
  }
  return out;
}
