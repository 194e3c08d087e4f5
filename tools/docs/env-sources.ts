import { BaseEnv } from '@novelrag/bus';
import { LlmEnv } from '@novelrag/llm';
import type { z } from 'zod';
import { GatewayEnv } from '../../apps/gateway/src/config';
import { OrchestratorEnv } from '../../apps/orchestrator/src/config';
import { ResourceServiceEnv } from '../../apps/resource-service/src/config';
import { ToolRunnerEnv } from '../../apps/tool-runner/src/config';
import { McpBridgeEnv } from '../../apps/mcp-bridge/src/config';
import { ChaosEnv } from '../../libs/testkit/src/chaos/options';
import { BenchEnv, ClientEnv, LauncherEnv, TestEnv } from './script-env';

/** One environment schema as docs/configuration.md shows it: a section, who reads it, its variables. */
export interface EnvSource {
  readonly title: string;
  /** Who reads these variables (the "service(s)" column). */
  readonly readBy: string;
  /** Where the schema is defined, shown under the section title. */
  readonly definedIn: string;
  readonly intro: string;
  readonly schema: z.ZodObject;
  /** Schemas whose variables this one includes but another section documents. */
  readonly includes?: readonly z.ZodObject[];
}

const SERVICES = 'gateway, orchestrator, tool-runner, resource-service';

/** Every environment schema of the services, the libs and the scripts, in the order the document shows them. */
export const ENV_SOURCES: readonly EnvSource[] = [
  {
    title: 'Every service',
    readBy: SERVICES,
    definedIn: 'libs/bus/src/config.ts (`BaseEnv`)',
    intro:
      'The connection to NATS, identity, logging and shutdown; every service adds its own variables to these.',
    schema: BaseEnv,
  },
  {
    title: 'Model provider',
    readBy: 'orchestrator, tool-runner, resource-service, `npm run eval:retrieval`',
    definedIn: 'libs/llm/src/config.ts (`LlmEnv`)',
    intro:
      'The OpenAI-compatible provider. The orchestrator and the tool-runner use the chat model; the resource-service uses the embeddings variables; `npm run eval:retrieval` uses both (the reranking model when `OPENAI_*` is set).',
    schema: LlmEnv,
  },
  {
    title: 'gateway',
    readBy: 'gateway',
    definedIn: 'apps/gateway/src/config.ts',
    intro: 'The REST/SSE front door.',
    schema: GatewayEnv,
  },
  {
    title: 'orchestrator',
    readBy: 'orchestrator',
    definedIn: 'apps/orchestrator/src/config.ts',
    intro: "Goal pursuit. The limits are defaults: a goal's own `limits` override them.",
    schema: OrchestratorEnv,
    includes: [LlmEnv],
  },
  {
    title: 'tool-runner',
    readBy: 'tool-runner',
    definedIn: 'apps/tool-runner/src/config.ts',
    intro: 'Hosts the built-in tools.',
    schema: ToolRunnerEnv,
    includes: [LlmEnv],
  },
  {
    title: 'resource-service',
    readBy: 'resource-service',
    definedIn: 'apps/resource-service/src/config.ts',
    intro: 'Owns the knowledge repository.',
    schema: ResourceServiceEnv,
    includes: [LlmEnv],
  },
  {
    title: 'mcp-bridge',
    readBy: 'mcp-bridge',
    definedIn: 'apps/mcp-bridge/src/config.ts',
    intro:
      'Hosts the tools of MCP servers on the bus (see [MCP](mcp.md)); it also reads the variables every service reads.',
    schema: McpBridgeEnv,
  },
  {
    title: 'Launcher',
    readBy: '`npm start`',
    definedIn: 'tools/docs/script-env.ts (`LauncherEnv`, documentation only)',
    intro:
      'The launcher passes its whole environment on to the services, starts `nats-server -js` when nothing listens at `NATS_URL`, and sets `NOVELRAG_AUTH_DISABLED=true` when neither API keys nor that variable are given.',
    schema: LauncherEnv,
  },
  {
    title: 'CLI and demo',
    readBy: 'CLI, `npm run demo`',
    definedIn: 'tools/docs/script-env.ts (`ClientEnv`, documentation only)',
    intro: 'Clients of the gateway. The demo also reads `NOVELRAG_DATA_DIR` to find the running launcher.',
    schema: ClientEnv,
  },
  {
    title: 'Tests',
    readBy: '`npm test`, test harness',
    definedIn: 'tools/docs/script-env.ts (`TestEnv`, documentation only)',
    intro:
      'The NATS harness of the tests uses `NATS_URL` when it is set and reachable, else a private `nats-server -js`, else a container.',
    schema: TestEnv,
  },
  {
    title: 'Benchmarks',
    readBy: '`npm run bench`',
    definedIn: 'tools/docs/script-env.ts (`BenchEnv`, documentation only)',
    intro:
      'See BENCHMARKS.md (generated from the output of the benchmarks: `npm run bench -- --write-benchmarks`, or `npm run benchmarks:write` from the newest output in `bench-results/`). `QDRANT_URL` and `QDRANT_API_KEY` add Qdrant to the resource benchmark.',
    schema: BenchEnv,
  },
  {
    title: 'Fault injection',
    readBy: '`npm run chaos`, e2e/chaos.e2e-spec.ts',
    definedIn: 'libs/testkit/src/chaos/options.ts (`ChaosEnv`)',
    intro:
      'The fault-injection run (docs/testing.md, "Chaos"). Defaults are the long run\'s; the e2e short run has its own (named per variable) and takes the same overrides.',
    schema: ChaosEnv,
  },
];
