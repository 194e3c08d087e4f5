import { defineTool, type HostedTool } from '@novelrag/tool-kit';

/** Rolls dice. Idempotent per invocation: a retried call gets the recorded roll, not a new one. */
export const diceRoll: HostedTool = defineTool({
  name: 'DiceRoll',
  description: 'Roll dice, e.g. 3 six-sided dice, to decide an outcome by chance.',
  outputDescription: 'The individual rolls and their total.',
  inputSchema: {
    type: 'object',
    properties: {
      sides: { type: 'integer', minimum: 2, maximum: 1000, description: 'Faces per die' },
      count: { type: 'integer', minimum: 1, maximum: 100, description: 'How many dice' },
    },
    required: ['sides', 'count'],
    additionalProperties: false,
  },
  timeoutMs: 5_000,
  hints: { readOnly: true },
  handler: (params, ctx) => {
    const sides = Number(params['sides']);
    const count = Number(params['count']);
    const rolls = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
    ctx.info(`rolled ${count}d${sides}`);
    return `${count}d${sides}: ${rolls.join(', ')} (total ${rolls.reduce((a, b) => a + b, 0)})`;
  },
});

/** Counts words; Chinese, Japanese and Korean characters count one each. */
export const wordCount: HostedTool = defineTool({
  name: 'WordCount',
  description: 'Count the words of a text (each CJK character counts as one word).',
  outputDescription: 'The number of words.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', maxLength: 100000 } },
    required: ['text'],
    additionalProperties: false,
  },
  timeoutMs: 5_000,
  hints: { readOnly: true, idempotent: true },
  handler: (params) => {
    const text = String(params['text']);
    const cjk = text.match(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g)?.length ?? 0;
    const words = text
      .replace(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g, ' ')
      .split(/\s+/)
      .filter(Boolean).length;
    return String(cjk + words);
  },
});
