import { toolError, toolResult } from '@novelrag/agenturn';
import type { HostedTool } from '@novelrag/tool-kit';

export const MAX_RANDOM_NUMBERS = 1000;
const BOUND = 1_000_000_000;

/** Uniform random integers in [min, max], from the runner's random source. */
export function randomNumbersTool(random: () => number): HostedTool {
  return {
    name: 'random_numbers',
    description:
      'Draw random integers, each uniformly from min to max inclusive (for dice, lots, picks, shuffles). ' +
      `At most ${MAX_RANDOM_NUMBERS} numbers at once.`,
    outputDescription: 'JSON {"numbers": [..]}.',
    inputSchema: {
      type: 'object',
      properties: {
        count: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_RANDOM_NUMBERS,
          description: 'How many (default 1)',
        },
        min: { type: 'integer', minimum: -BOUND, maximum: BOUND, description: 'Smallest value (default 1)' },
        max: { type: 'integer', minimum: -BOUND, maximum: BOUND, description: 'Largest value (default 100)' },
      },
      additionalProperties: false,
    },
    timeoutMs: 5_000,
    hints: { readOnly: true, destructive: false, idempotent: false },
    call(ctx, params) {
      const count = Number(params['count'] ?? 1);
      const min = Number(params['min'] ?? 1);
      const max = Number(params['max'] ?? 100);
      if (min > max) {
        ctx.error(`random_numbers: min ${min} > max ${max}`);
        return Promise.resolve(toolError(`min (${min}) is greater than max (${max})`, 'VALIDATION_FAILED'));
      }
      const numbers = Array.from({ length: count }, () => min + Math.floor(random() * (max - min + 1)));
      return Promise.resolve(toolResult(JSON.stringify({ numbers })));
    },
  };
}
