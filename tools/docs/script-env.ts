import { z } from 'zod';

// The launcher, the CLI, the demo and the test and benchmark scripts read their variables straight from the
// environment (they have no boot-time schema). These schemas only describe those variables for
// docs/configuration.md; the defaults mirror the programs' own. The docs test scans every source file for the
// variables it reads, so a variable added to a program without a line here fails it.

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** `npm start` (tools/scripts/start.mjs): its own variables; it passes the whole environment on to the services. */
export const LauncherEnv = z.object({
  NOVELRAG_TOOL_RUNNERS: int(1, 16).default(2).describe('Tool-runner processes `npm start` starts.'),
  NOVELRAG_LOGS: z
    .enum(['inherit'])
    .optional()
    .describe(
      "`inherit` streams the services' logs to the terminal; by default they go to files in `<data dir>/logs`.",
    ),
  NOVELRAG_LLM: z
    .enum(['openai', 'scripted'])
    .optional()
    .describe(
      'Model mode: `openai` (needs `OPENAI_API_KEY` and/or `OPENAI_BASE_URL`) or `scripted` (an OpenAI-compatible server replaying `NOVELRAG_SCENARIO`). Default: `openai` when either `OPENAI_*` variable is set, else `scripted`.',
    ),
  NOVELRAG_SCENARIO: z
    .string()
    .default('tools/demo/scenario.json')
    .describe('Recorded scenario the scripted model replays (relative to the repository).'),
  NOVELRAG_SCRIPTED_DELAY_MS: int(0, 60_000).default(150).describe('Delay of every scripted model answer.'),
  NOVELRAG_SCRIPTED_DUMP: z
    .string()
    .optional()
    .describe('Folder where the scripted model writes every request it receives (for recording scenarios).'),
  LANCEDB_LOG: z
    .string()
    .default('error')
    .describe(
      "Level of LanceDB's native logger; `npm start`, `npm test` and `npm run bench` set `error` unless given (it warns on every search otherwise).",
    ),
});

/** The CLI (`novelrag`) and `npm run demo`: clients of the gateway. */
export const ClientEnv = z.object({
  NOVELRAG_URL: z
    .url()
    .default('http://127.0.0.1:8080')
    .describe('The gateway to talk to (`--url` overrides).'),
  NOVELRAG_API_KEY: z
    .string()
    .optional()
    .describe('API key sent as `Authorization: Bearer <key>` (`--api-key` overrides).'),
  NO_COLOR: z.string().optional().describe('Any value turns colours off in the CLI output.'),
  NATS_URL: z
    .string()
    .default('nats://127.0.0.1:4222')
    .describe(
      '`novelrag tools check` only: the NATS server of the bus, where it calls the tool (`--nats` overrides).',
    ),
});

/** `npm test` and the test harness in libs/testkit. */
export const TestEnv = z.object({
  SKIP_STATIC: z
    .string()
    .optional()
    .describe(
      'Any value makes `npm test` skip the project graph, lint, format and typecheck steps (build and Jest only).',
    ),
  DOCKER_HOST: z
    .string()
    .optional()
    .describe(
      'A Docker engine for testcontainers: the NATS harness falls back to a container when no `nats-server` is on PATH (also found through `/var/run/docker.sock`).',
    ),
  CI: z
    .string()
    .optional()
    .describe('`true` in CI: the browser suite then fails, instead of skipping, when Chromium is missing.'),
  NOVELRAG_CHROMIUM: z
    .string()
    .optional()
    .describe("The browser suite's Chromium executable (default: Debian's `/usr/bin/chromium`)."),
  NOVELRAG_SCREENSHOTS: z
    .string()
    .optional()
    .describe(
      'Folder the browser suite saves its screenshots to (default `tmp/screenshots`; `docs/screenshots` refreshes the committed ones).',
    ),
  GOCACHE: z
    .string()
    .optional()
    .describe(
      "Go's build cache for the reference Go tool's build in the e2e suite (default `tmp/go-cache`).",
    ),
});

/** `npm run bench` (tools/scripts/bench.mjs and bench/*.bench.mjs); command-line options take precedence. */
export const BenchEnv = z.object({
  BENCH_ONLY: z
    .string()
    .optional()
    .describe('Comma-separated benchmarks to run (`system`, `resources`); default: all.'),
  BENCH_SIZES: z.string().default('10000').describe('Resource benchmark: store sizes (comma-separated).'),
  BENCH_STORES: z
    .string()
    .optional()
    .describe(
      'Resource benchmark: stores to measure; default `memory,lancedb`, plus `qdrant` with `QDRANT_URL`.',
    ),
  BENCH_QUERIES: int(1, 1_000_000)
    .default(200)
    .describe('Resource benchmark: searches and segment requests per size.'),
  BENCH_BATCH: int(1, 1_000_000).default(500).describe('Resource benchmark: elements per insert batch.'),
  BENCH_INSTANCE: z
    .string()
    .optional()
    .describe("Set by the system benchmark for its no-op tool runner: the runner's instance name."),
  BENCH_SPIN_ITERATIONS: int(1, 100_000_000)
    .default(20_000)
    .describe("System benchmark: PBKDF2 iterations of the no-op runner's CPU-bound `BenchSpin` tool."),
  BENCH_NODE_ARGS: z
    .string()
    .optional()
    .describe(
      'Node options (space-separated) for every process a benchmark starts, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile each one.',
    ),
  BENCH_CONCURRENCY: int(1, 10_000)
    .default(64)
    .describe('Set by the system benchmark for its no-op tool runner: invocations it runs at once.'),
});
