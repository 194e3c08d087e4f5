import { z } from 'zod';
import type { ChaosOptions } from './run';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const rate = z.coerce.number().min(0).max(1);

/** The run's settings from the environment (`npm run chaos`, and the e2e suite's short run), over `defaults`. */
export const ChaosEnv = z.object({
  CHAOS_GOALS: int(1, 200)
    .optional()
    .describe('Concurrent goals of a chaos run (default 20; the e2e run 4).'),
  CHAOS_KILLS: int(0, 100)
    .optional()
    .describe('kill -9 of orchestrators and tool-runners, in turn (default 6; the e2e run 2).'),
  CHAOS_NATS_RESTART: z
    .enum(['true', 'false'])
    .optional()
    .describe('Also kill -9 and restart the NATS server once (default true; the e2e run false).'),
  CHAOS_BROKEN_RATE: rate.optional().describe('Share of broken model answers (default 0.1).'),
  CHAOS_ANSWER_RATE: rate
    .optional()
    .describe("Share of confirmations the 'human' answers; the others expire (default 1)."),
  CHAOS_APPROVE_RATE: rate.optional().describe('Share of answered confirmations approved (default 0.7).'),
  CHAOS_GOAL_BOUND_MS: int(1_000, 3_600_000)
    .optional()
    .describe('Every goal must be terminal within this (default 600000; the e2e run 240000).'),
  CHAOS_INTERACTION_TIMEOUT_MS: int(1_000, 3_600_000)
    .optional()
    .describe('`NOVELRAG_INTERACTION_TIMEOUT_MS` given to the services (default 60000).'),
  CHAOS_MAX_PAUSE_MS: int(0, 600_000)
    .optional()
    .describe('Longest random pause before each fault (default 8000; the e2e run 3000).'),
  CHAOS_MODEL_DELAY_MS: int(0, 60_000)
    .optional()
    .describe('Longest random delay of a model answer (default 400).'),
  CHAOS_SERVICE_DEFAULTS: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      "Run the services with their own lease and ack-wait defaults (default true); `false` uses the tests' short ones (the e2e run).",
    ),
  CHAOS_SAME_IDS: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'Start a killed process again under its old instance id, as `npm start` does (default false: a new id, so an orchestrator kill measures the takeover by another instance).',
    ),
  CHAOS_SEED: int(0, 2 ** 32 - 1)
    .optional()
    .describe('Seed of the random choices (default: random, printed).'),
});

type Settings = Omit<ChaosOptions, 'log' | 'env'>;

export const LONG_RUN: Settings = {
  goals: 20,
  kills: 6,
  natsRestart: true,
  brokenRate: 0.1,
  answerRate: 1,
  approveRate: 0.7,
  goalBoundMs: 600_000,
  interactionTimeoutMs: 60_000,
  maxPauseMs: 8_000,
  modelDelayMs: 400,
  serviceDefaults: true,
  sameIds: false,
  seed: 0,
};

/** Settings from `env` (invalid values throw, naming the variable) over `defaults`; a random seed unless given. */
export function chaosSettings(env: NodeJS.ProcessEnv, defaults: Settings = LONG_RUN): Settings {
  const parsed = ChaosEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`CHAOS_INVALID_ENV: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const e = parsed.data;
  return {
    goals: e.CHAOS_GOALS ?? defaults.goals,
    kills: e.CHAOS_KILLS ?? defaults.kills,
    natsRestart: e.CHAOS_NATS_RESTART ? e.CHAOS_NATS_RESTART === 'true' : defaults.natsRestart,
    brokenRate: e.CHAOS_BROKEN_RATE ?? defaults.brokenRate,
    answerRate: e.CHAOS_ANSWER_RATE ?? defaults.answerRate,
    approveRate: e.CHAOS_APPROVE_RATE ?? defaults.approveRate,
    goalBoundMs: e.CHAOS_GOAL_BOUND_MS ?? defaults.goalBoundMs,
    interactionTimeoutMs: e.CHAOS_INTERACTION_TIMEOUT_MS ?? defaults.interactionTimeoutMs,
    maxPauseMs: e.CHAOS_MAX_PAUSE_MS ?? defaults.maxPauseMs,
    modelDelayMs: e.CHAOS_MODEL_DELAY_MS ?? defaults.modelDelayMs,
    sameIds: e.CHAOS_SAME_IDS ? e.CHAOS_SAME_IDS === 'true' : defaults.sameIds,
    serviceDefaults: e.CHAOS_SERVICE_DEFAULTS
      ? e.CHAOS_SERVICE_DEFAULTS === 'true'
      : defaults.serviceDefaults,
    seed: e.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 32),
  };
}
