import type { LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
import { activeTraceIds } from '@novelrag/telemetry';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Structured JSON-lines logger (one object per line on stdout/stderr) that also serves as Nest's logger.
 * Callers put ids (goalId, step, invocationId, requestId) in `fields`; never prompts, model output or secrets. The
 * active span's `traceId` and `spanId` are added when tracing is on.
 */
export class JsonLogger implements LoggerService {
  constructor(
    private readonly service: string,
    private readonly instance: string,
    private readonly level: LogLevel = 'info',
    private readonly sink: (line: string, isError: boolean) => void = (line, isError) =>
      (isError ? process.stderr : process.stdout).write(line + '\n'),
  ) {}

  child(context: string): ContextLogger {
    return new ContextLogger(this, context);
  }

  write(level: Exclude<LogLevel, 'silent'>, msg: string, fields: LogFields = {}, context?: string): void {
    if (RANK[level] < RANK[this.level]) return;
    const line = JSON.stringify({
      ts: new Date().toISOString(),
      level,
      service: this.service,
      instance: this.instance,
      ...(context ? { context } : {}),
      msg,
      ...activeTraceIds(),
      ...redacted(fields),
    });
    this.sink(line, level === 'error' || level === 'warn');
  }

  // Nest LoggerService: (message, ...optionalParams) where the last string param is the context.
  log(message: unknown, ...rest: unknown[]): void {
    this.nest('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.nest('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.nest('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.nest('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.nest('debug', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.nest('error', message, rest);
  }
  setLogLevels(_levels: NestLogLevel[]): void {
    // Levels come from NOVELRAG_LOG_LEVEL, validated at boot.
  }

  private nest(level: Exclude<LogLevel, 'silent'>, message: unknown, rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    const msg =
      message instanceof Error
        ? message.message
        : typeof message === 'string'
          ? message
          : JSON.stringify(message);
    this.write(level, msg, stack && level === 'error' ? { stack } : {}, context);
  }
}

/** A logger bound to a context (class or feature name). */
export class ContextLogger {
  constructor(
    private readonly root: JsonLogger,
    private readonly context: string,
  ) {}
  debug(msg: string, fields?: LogFields): void {
    this.root.write('debug', msg, fields, this.context);
  }
  info(msg: string, fields?: LogFields): void {
    this.root.write('info', msg, fields, this.context);
  }
  warn(msg: string, fields?: LogFields): void {
    this.root.write('warn', msg, fields, this.context);
  }
  error(msg: string, fields?: LogFields): void {
    this.root.write('error', msg, fields, this.context);
  }
}

/**
 * Field names whose values never reach a log line: credentials, and model content (prompts, messages, completions).
 * A backstop: callers are expected not to pass them at all.
 */
const REDACTED_FIELDS =
  /^(authorization|api[-_]?key|apikey|password|pass|secret|token|access[-_]?token|cookie|prompt|messages|completion|content|input|output)$/i;

function redacted(fields: LogFields): LogFields {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    if (!REDACTED_FIELDS.test(key)) continue;
    out ??= { ...fields };
    out[key] = '[redacted]';
  }
  return out ?? fields;
}
