import { LlmEnv } from '@novelrag/llm';
import { z } from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const OrchestratorEnv = z
  .object({
    /** Goals one instance pursues at the same time (goals waiting for their thread count too). */
    NOVELRAG_GOAL_CONCURRENCY: int(1, 64).default(4),
    /**
     * Ack wait of the GOALS consumer: a goal whose orchestrator stopped heartbeating for this long is redelivered to
     * another instance (heartbeats every third of it). Applied to the durable consumer at boot.
     */
    NOVELRAG_GOAL_ACK_WAIT_MS: int(1_000, 10 * 60_000).default(60_000),
    /**
     * Started pursuits after which a goal that keeps killing its orchestrator is failed instead of resumed (a hand-back
     * at shutdown does not count). Also the deliveries in a row whose handling failed (e.g. an unreadable record) after
     * which a goal is failed and its message terminated.
     */
    NOVELRAG_GOAL_MAX_ATTEMPTS: int(1, 100).default(5),
    /** Defaults for limits a goal does not set. */
    NOVELRAG_MAX_STEPS: int(1, 1_000).default(30),
    NOVELRAG_MAX_ITERATIONS: int(1, 50).default(5),
    NOVELRAG_MIN_ITERATIONS: int(0, 50).default(0),
    NOVELRAG_WALL_CLOCK_MS: int(1_000, 24 * 60 * 60_000).default(10 * 60_000),
    /** Token budget per goal when the goal sets none (0 = unlimited). */
    NOVELRAG_TOKEN_BUDGET: int(0, 100_000_000).default(0),
    /** How long a human is given to answer when the tool does not say (silence means no). */
    NOVELRAG_INTERACTION_TIMEOUT_MS: int(1_000, 24 * 60 * 60_000).default(5 * 60_000),
    /** Thread lease: a holder that stops renewing for this long loses the thread to the next waiter. */
    NOVELRAG_THREAD_LEASE_MS: int(1_000, 10 * 60_000).default(30_000),
    /** Longest a goal waits for its thread before it is handed back to the queue (and comes back later). */
    NOVELRAG_THREAD_WAIT_MS: int(1_000, 60 * 60_000).default(5 * 60_000),
    /** How often the tool catalogue is rediscovered (`$SRV.INFO`). */
    NOVELRAG_TOOL_REFRESH_MS: int(500, 10 * 60_000).default(15_000),
    /** Per tool call when the tool declares no timeout. */
    NOVELRAG_TOOL_TIMEOUT_MS: int(100, 60 * 60_000).default(120_000),
    /**
     * How long past its lease a runner's claim on a tool call (KV `tool-results`) is still trusted, for clock skew
     * between hosts. A claim stale for longer means its runner died: the call is retried on another runner at once
     * instead of after its attempt's timeout.
     */
    NOVELRAG_TOOL_CLAIM_GRACE_MS: int(0, 10 * 60_000).default(2_000),
    /** Bound on one resource-service request from the loop. */
    NOVELRAG_RESOURCE_TIMEOUT_MS: int(100, 10 * 60_000).default(10_000),
    /** Prompt templates folder (`<dir>/<lang>/<name>.njk`); default: the nearest `templates/`. */
    NOVELRAG_TEMPLATES_DIR: z.string().min(1).optional(),
    /** Default content language when a goal has none. */
    NOVELRAG_DEFAULT_LANG: z
      .string()
      .regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/)
      .default('en'),
  })
  .extend(LlmEnv.shape);
export type OrchestratorEnv = z.infer<typeof OrchestratorEnv>;
