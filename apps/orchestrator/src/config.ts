import { LlmEnv } from '@novelrag/llm';
import { z } from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const OrchestratorEnv = z
  .object({
    NOVELRAG_GOAL_CONCURRENCY: int(1, 64)
      .default(4)
      .describe('Goals one instance pursues at the same time (goals waiting for their thread count too).'),
    NOVELRAG_GOAL_ACK_WAIT_MS: int(1_000, 10 * 60_000)
      .default(3_000)
      .describe(
        'Ack wait of the GOALS consumer: a goal whose orchestrator stopped heartbeating for this long (heartbeats every fifth of it) is resumed by another instance. With NOVELRAG_THREAD_LEASE_MS it bounds the takeover after a crash (default: about 3 s). The orchestrator applies it to the durable consumer at boot.',
      ),
    NOVELRAG_GOAL_MAX_ATTEMPTS: int(1, 100)
      .default(5)
      .describe(
        'Started pursuits after which a goal that keeps killing its orchestrator is failed instead of resumed (a hand-back at shutdown does not count); also the deliveries in a row whose handling failed (e.g. an unreadable record) after which the goal is failed and its message terminated.',
      ),
    NOVELRAG_MAX_STEPS: int(1, 1_000)
      .default(30)
      .describe("Default step limit of a goal (a goal's `limits` override it)."),
    NOVELRAG_MAX_ITERATIONS: int(1, 50)
      .default(5)
      .describe("Default cap on the loop's rounds per step (context loop and refinement verdicts)."),
    NOVELRAG_MIN_ITERATIONS: int(0, 50)
      .default(0)
      .describe(
        'Rounds the loop makes before a tool may run (the refinement verdict is asked at least this often).',
      ),
    NOVELRAG_ASSISTANT_MAX_ROUNDS: int(1, 50)
      .default(4)
      .describe(
        'Thinking rounds of an `assistant` goal before its answer is forced from what is known (each round may run a group of tool calls).',
      ),
    NOVELRAG_PARALLEL_TOOL_CALLS: int(1, 32)
      .default(4)
      .describe(
        'Most tool calls one step may run at the same time (a `novelrag` action decision or an `assistant` thinking round; extra calls are dropped; calls naming the same resource run one after the other).',
      ),
    NOVELRAG_WALL_CLOCK_MS: int(1_000, 24 * 60 * 60_000)
      .default(10 * 60_000)
      .describe('Default wall-clock budget of a goal.'),
    NOVELRAG_TOKEN_BUDGET: int(0, 100_000_000)
      .default(0)
      .describe('Default token budget of a goal (0 = unlimited).'),
    NOVELRAG_INTERACTION_TIMEOUT_MS: int(1_000, 24 * 60 * 60_000)
      .default(5 * 60_000)
      .describe(
        'How long a human is given to answer a confirmation or request when the tool does not say (silence means no).',
      ),
    NOVELRAG_THREAD_LEASE_MS: int(1_000, 10 * 60_000)
      .default(3_000)
      .describe(
        'Thread lease: the holder renews it every fifth of this; a holder that stops renewing for this long (crashed, or paused: it then stops acting) loses the thread to the next waiter.',
      ),
    NOVELRAG_THREAD_WAIT_MS: int(1_000, 60 * 60_000)
      .default(5 * 60_000)
      .describe(
        'Longest a goal waits for its busy thread before it is handed back to the queue (it comes back later).',
      ),
    NOVELRAG_TOOL_REFRESH_MS: int(500, 10 * 60_000)
      .default(15_000)
      .describe(
        'Periodic tool rediscovery (`$SRV.INFO`); hosts that announce on `novelrag.tools.changed` are seen at once.',
      ),
    NOVELRAG_TOOL_TIMEOUT_MS: int(100, 60 * 60_000)
      .default(120_000)
      .describe('Limit of one tool call when the tool declares no timeout.'),
    NOVELRAG_TOOL_CLAIM_GRACE_MS: int(0, 10 * 60_000)
      .default(2_000)
      .describe(
        "How long past its lease a runner's claim on a tool call is still trusted (clock skew between hosts); after that the runner is taken for dead and the call is retried at once. Also how long a tool that keeps no claims may leave pings unanswered before its pending call is given up, and how long a recorded result may go without its reply before the call is asked again (answered from the record).",
      ),
    NOVELRAG_RESOURCE_TIMEOUT_MS: int(100, 10 * 60_000)
      .default(10_000)
      .describe('Bound on one resource-service request from the loop.'),
    NOVELRAG_TEMPLATES_DIR: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Prompt templates folder (`<dir>/<lang>/<name>.njk`); default: the nearest `templates/` folder.',
      ),
    NOVELRAG_RAG_MAX_TOOL_CALLS: int(0, 100)
      .default(8)
      .describe(
        'Retrieval tool calls one `rag` question may make; when reached, it is answered with what was found, marked as limited.',
      ),
    NOVELRAG_RAG_CITATION_POLICY: z
      .enum(['flag', 'strip', 'fail'])
      .default('strip')
      .describe(
        'What happens to a `rag` answer citation whose quote is not in the cited document: `flag` keeps it (marked unverified), `strip` removes the tag and keeps the statement, `fail` fails the answer.',
      ),
    NOVELRAG_DEFAULT_LANG: z
      .string()
      .regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/)
      .default('en')
      .describe('Content language of a goal that names none.'),
  })
  .extend(LlmEnv.shape);
export type OrchestratorEnv = z.infer<typeof OrchestratorEnv>;
