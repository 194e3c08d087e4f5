import { randomBytes } from 'node:crypto';
import { parseToolOwners } from '@novelrag/contracts';
import { z } from 'zod';
import { TelemetryEnv } from '@novelrag/telemetry';
import { LOG_LEVELS } from './logger';

/** Environment every service reads (validated once at boot; a bad value stops the process before it connects). */
export const BaseEnv = z
  .object({
    NATS_URL: z
      .string()
      .refine(
        (v) =>
          v.split(',').every((part) => /^((nats|tls|ws|wss):\/\/)?[^\s/:,]+(:\d{1,5})?$/.test(part.trim())),
        'must be nats://host:port (several comma-separated)',
      )
      .default('nats://127.0.0.1:4222')
      .describe(
        'NATS server(s), comma-separated. `npm start` starts `nats-server -js` (data in `<data dir>/nats`) when nothing listens there.',
      ),
    NATS_USER: z
      .string()
      .min(1)
      .optional()
      .describe(
        'NATS user, when the server requires credentials (docker-compose gives each service its own).',
      ),
    NATS_PASSWORD: z.string().min(1).optional().describe('Password of `NATS_USER`.'),
    NATS_TLS_CA: z
      .string()
      .min(1)
      .optional()
      .describe(
        "PEM file of the CA that signed the NATS server's certificate; setting it (or a `tls://` NATS_URL) turns TLS on and the server's certificate is verified (a self-signed certificate is its own CA).",
      ),
    NATS_TLS_CERT: z
      .string()
      .min(1)
      .optional()
      .describe(
        'PEM client certificate, for a NATS server that verifies clients (mutual TLS); with `NATS_TLS_KEY`.',
      ),
    NATS_TLS_KEY: z.string().min(1).optional().describe('PEM private key of `NATS_TLS_CERT`.'),
    NOVELRAG_TOOL_OWNERS: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined || text.trim() === '') return undefined;
        try {
          return parseToolOwners(text);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
          return z.NEVER;
        }
      })
      .describe(
        'Admitted third-party tools, `<suffix>=<Tool>,<Tool>;<suffix>=<Tool>` (printed by `npm run admit-tool`): the micro service `novelrag-tools-<suffix>` may serve exactly those names. Read by the orchestrator and the gateway, which ignore (and list as refused) an endpoint whose service may not serve its name. Unset: any third-party service may serve any name that is not built in.',
      ),
    NOVELRAG_INSTANCE_ID: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, - and _ only (max 64)')
      .optional()
      .describe(
        'Instance name in logs, the NATS connection name and the per-instance health subject (letters, digits, `-`, `_`; default `<service>-<random>`).',
      ),
    NOVELRAG_LOG_LEVEL: z
      .enum(LOG_LEVELS)
      .default('info')
      .describe('Log level. Logs are JSON lines with ids, never prompts, model output or secrets.'),
    NOVELRAG_SHUTDOWN_GRACE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(120_000)
      .default(10_000)
      .describe('How long SIGTERM waits for work in flight before the process exits anyway.'),
    NOVELRAG_CONNECT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(10_000)
      .describe('Bound on the first NATS connection at boot (after that the client reconnects forever).'),
    NOVELRAG_METRICS_PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65_535)
      .optional()
      .describe(
        'When set, the service serves its Prometheus metrics at `http://<host>:<port>/metrics` (0 = any free port). The gateway always serves them at `/metrics` on its HTTP port.',
      ),
    NOVELRAG_METRICS_HOST: z
      .string()
      .min(1)
      .default('0.0.0.0')
      .describe('Interface of the metrics port (`NOVELRAG_METRICS_PORT`).'),
  })
  .extend(TelemetryEnv.shape);
export type BaseEnv = z.infer<typeof BaseEnv>;

/** Thrown for an invalid environment; the message names every bad variable and why. */
export class EnvError extends Error {
  override readonly name = 'EnvError';
  readonly code = 'VALIDATION_FAILED';
}

/** Parses `env` with `schema`, or throws an EnvError listing each bad variable. */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  const r = schema.safeParse(env);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `  ${i.path.map(String).join('.') || '(env)'}: ${i.message}`);
  throw new EnvError(`invalid environment:\n${lines.join('\n')}`);
}

export function defaultInstanceId(service: string): string {
  return `${service}-${randomBytes(3).toString('hex')}`;
}
