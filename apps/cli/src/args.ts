import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usageError } from './errors';

type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Options every command accepts. */
const GLOBAL: OptionSpec = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** Options of the commands that follow a goal's trace without answering questions. */
const WATCH: OptionSpec = {
  wait: { type: 'string' },
  verbose: { type: 'boolean', short: 'v' },
  detach: { type: 'boolean', short: 'd' },
  /** Safety-net poll of the goal record (ms), see follow.ts. */
  poll: { type: 'string' },
};

/** Options of the commands that follow a goal's trace. */
const FOLLOW: OptionSpec = {
  ...WATCH,
  yes: { type: 'boolean', short: 'y' },
  no: { type: 'boolean' },
};

/** Options of the commands that submit a goal (with the options of following it). */
const SUBMIT: OptionSpec = {
  lang: { type: 'string' },
  thread: { type: 'string' },
  'max-steps': { type: 'string' },
  'idempotency-key': { type: 'string' },
};

interface CommandSpec {
  readonly summary: string;
  readonly usage: string;
  readonly options: OptionSpec;
  readonly min: number;
  /** Max positionals; Infinity joins them with spaces (free text). */
  readonly max: number;
}

export const COMMANDS = {
  goal: {
    summary: 'submit a request (or --goal text) and follow its pursuit live',
    usage:
      'goal "<request>" [--lang zh] [--thread <id>] [--goal] [--belief <text>]... [--max-steps N] [--idempotency-key K] [--yes|--no] [--detach] [--wait ms] [--verbose]',
    options: {
      ...FOLLOW,
      ...SUBMIT,
      goal: { type: 'boolean' },
      belief: { type: 'string', multiple: true },
    },
    min: 1,
    max: Infinity,
  },
  chat: {
    summary:
      'ask the assistant (plans, runs tools in parallel, answers with suggested next inputs) and follow it',
    usage:
      'chat "<message>" [--lang zh] [--thread <id>] [--belief <text>]... [--max-steps N] [--idempotency-key K] [--yes|--no] [--detach] [--wait ms] [--verbose]',
    options: { ...FOLLOW, ...SUBMIT, belief: { type: 'string', multiple: true } },
    min: 1,
    max: Infinity,
  },
  ask: {
    summary:
      'ask the repository a question: the answer streamed as it is written, then its citations (verified or not)',
    usage:
      'ask "<question>" [--lang zh] [--thread <id>] [--max-steps N] [--idempotency-key K] [--detach] [--wait ms] [--verbose]',
    options: { ...WATCH, ...SUBMIT },
    min: 1,
    max: Infinity,
  },
  follow: {
    summary: "follow a goal's trace (replayed from the start, then live)",
    usage: 'follow <goalId> [--yes|--no] [--wait ms] [--verbose]',
    options: FOLLOW,
    min: 1,
    max: 1,
  },
  goals: {
    summary: 'list goals, newest first',
    usage: 'goals [--status <status>] [--thread <id>] [--limit N] [--cursor C]',
    options: {
      status: { type: 'string' },
      thread: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    },
    min: 0,
    max: 0,
  },
  show: { summary: 'show one goal', usage: 'show <goalId>', options: {}, min: 1, max: 1 },
  answer: {
    summary: "answer a goal's pending confirmation or question",
    usage: 'answer <goalId> <interactionId> (--approve | --decline | --text "<answer>")',
    options: { approve: { type: 'boolean' }, decline: { type: 'boolean' }, text: { type: 'string' } },
    min: 2,
    max: 2,
  },
  cancel: { summary: 'cancel a goal', usage: 'cancel <goalId>', options: {}, min: 1, max: 1 },
  next: {
    summary: 'let the system pick its next goal (backlog / exploration) and follow it',
    usage: 'next [--yes|--no] [--detach] [--wait ms] [--verbose]',
    options: FOLLOW,
    min: 0,
    max: 0,
  },
  undo: { summary: 'undo the newest group of changes', usage: 'undo', options: {}, min: 0, max: 0 },
  redo: { summary: 'redo the newest undone group', usage: 'redo', options: {}, min: 0, max: 0 },
  get: {
    summary: 'show a resource (/ lists aspects, /<aspect>, /<aspect>/<id>…)',
    usage: 'get <uri>',
    options: {},
    min: 1,
    max: 1,
  },
  search: {
    summary: 'hybrid search of the repository',
    usage: 'search "<query>" [--aspect <name>] [--limit N]',
    options: { aspect: { type: 'string' }, limit: { type: 'string' } },
    min: 1,
    max: Infinity,
  },
  tools: {
    summary:
      'list the tools discovered on the bus; `tools check <name>` runs the tool contract against a live tool',
    usage: 'tools [check <name> [--nats <url>] [--params <json>] [--slow-params <json>]]',
    options: { nats: { type: 'string' }, params: { type: 'string' }, 'slow-params': { type: 'string' } },
    min: 0,
    max: 2,
  },
  aspects: { summary: 'list aspects', usage: 'aspects', options: {}, min: 0, max: 0 },
  operations: {
    summary: 'recent undo/redo history',
    usage: 'operations [--limit N]',
    options: { limit: { type: 'string' } },
    min: 0,
    max: 0,
  },
  backlog: {
    summary: 'list the backlog; `backlog add "<task>" [--priority N]`; `backlog remove <id>`',
    usage: 'backlog [add "<task>" [--priority 0-10] | remove <id>] [--limit N]',
    options: { limit: { type: 'string' }, priority: { type: 'string' } },
    min: 0,
    max: Infinity,
  },
  import: {
    summary:
      'import a NovelRAG project directory (aspect.yml + its files), sent in bounded batches with progress',
    usage: 'import <dir> [--replace] [--batch-bytes N | --upload]',
    options: { replace: { type: 'boolean' }, 'batch-bytes': { type: 'string' }, upload: { type: 'boolean' } },
    min: 1,
    max: 1,
  },
  export: {
    summary: 'export every aspect as a NovelRAG project directory (aspect.yml + one file per aspect)',
    usage: 'export <dir> [--force]',
    options: { force: { type: 'boolean' } },
    min: 1,
    max: 1,
  },
  mcp: {
    summary: 'serve NovelRAG to an MCP client over stdio (a client of the gateway, like every command)',
    usage: 'mcp',
    options: {},
    min: 0,
    max: 0,
  },
  help: { summary: 'show this help', usage: 'help [command]', options: {}, min: 0, max: 1 },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

export interface GlobalOptions {
  readonly url: string;
  readonly apiKey: string | undefined;
  readonly json: boolean;
  /** Bound on one HTTP request (not on following a goal); for `tools check`, on each answer of the tool. */
  readonly timeoutMs: number;
}

export interface ParsedCommand {
  readonly command: CommandName;
  readonly positionals: readonly string[];
  /** The text of free-text commands (positionals joined by spaces). */
  readonly text: string;
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly global: GlobalOptions;
  /** The NATS server of the bus (`--nats`, `NATS_URL`): `tools check` only, the other commands use the gateway. */
  readonly natsUrl: string;
  readonly help: boolean;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_TIMEOUT_MS = 15_000;
/** Default bound on following a goal to its end. */
export const DEFAULT_WAIT_MS = 15 * 60_000;

function isCommand(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name);
}

/** A positive integer option (or undefined when absent). */
export function intOption(
  values: ParsedCommand['values'],
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw usageError(`--${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return n;
}

export function stringOption(values: ParsedCommand['values'], name: string): string | undefined {
  const raw = values[name];
  return typeof raw === 'string' ? raw : undefined;
}

export function flag(values: ParsedCommand['values'], name: string): boolean {
  return values[name] === true;
}

function gatewayUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`the gateway URL ${JSON.stringify(raw)} is not a URL (e.g. ${DEFAULT_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`the gateway URL must be http(s)://… (got ${JSON.stringify(raw)})`);
  return url.toString().replace(/\/+$/, '');
}

/**
 * Parses `novelrag <command> [args]` (global options anywhere). Environment: `NOVELRAG_URL`, `NOVELRAG_API_KEY`,
 * `NATS_URL` (`tools check`).
 * Throws a usage CliError for unknown commands/options, wrong counts of arguments and bad values.
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParsedCommand {
  // The command is the first positional once the global options (which take values) are set aside.
  const first = parseArgs({ args: [...argv], options: GLOBAL, allowPositionals: true, strict: false })
    .positionals[0];
  const name = first ?? 'help';
  if (!isCommand(name)) throw usageError(`unknown command "${name}" (try: novelrag help)`);
  const spec: CommandSpec = COMMANDS[name];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...GLOBAL, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw usageError(`${err instanceof Error ? err.message : String(err)}\nusage: novelrag ${spec.usage}`);
  }
  const positionals = [...parsed.positionals];
  if (first !== undefined) positionals.shift();
  const values = parsed.values as ParsedCommand['values'];
  const help = values['help'] === true || name === 'help';
  if (!help && (positionals.length < spec.min || positionals.length > spec.max)) {
    throw usageError(
      `${name} takes ${spec.min === spec.max ? spec.min : `${spec.min}+`} argument(s), got ${positionals.length}\nusage: novelrag ${spec.usage}`,
    );
  }
  const timeoutMs = intOption(values, 'timeout', 100, 600_000) ?? DEFAULT_TIMEOUT_MS;
  const url = stringOption(values, 'url') ?? (env['NOVELRAG_URL'] || DEFAULT_URL);
  const apiKey = stringOption(values, 'api-key') ?? (env['NOVELRAG_API_KEY'] || undefined);
  const natsUrl = stringOption(values, 'nats') ?? (env['NATS_URL'] || DEFAULT_NATS_URL);
  return {
    command: name,
    positionals,
    text: positionals.join(' ').trim(),
    values,
    global: { url: gatewayUrl(url), apiKey, json: values['json'] === true, timeoutMs },
    natsUrl,
    help,
  };
}

/** The help text: every command, or one command's usage. */
export function helpText(command?: string): string {
  if (command && isCommand(command)) {
    const spec: CommandSpec = COMMANDS[command];
    return `novelrag ${spec.usage}\n  ${spec.summary}\n\n${GLOBAL_HELP}`;
  }
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(
    ([name, spec]) => `  ${name.padEnd(width)}  ${(spec as CommandSpec).summary}`,
  );
  return `novelrag: the NovelRAG command line (a client of the gateway's REST API)\n\nusage: novelrag <command> [options]\n\n${lines.join('\n')}\n\n${GLOBAL_HELP}`;
}

const GLOBAL_HELP = `global options:
  --url <url>        gateway URL (env NOVELRAG_URL, default ${DEFAULT_URL})
  --api-key <key>    Bearer API key (env NOVELRAG_API_KEY)
  --json             machine-readable output (one JSON document; NDJSON events when following a goal)
  --timeout <ms>     bound on each HTTP request (default ${DEFAULT_TIMEOUT_MS})
exit status: 0 ok, 1 goal not completed (or a tool failed its check), 2 usage, 3 gateway unreachable, 4 gateway error, 5 timed out`;
