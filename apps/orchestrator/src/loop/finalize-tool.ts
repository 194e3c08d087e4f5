import type { ToolDefinition } from '@novelrag/agenturn';

/** The pseudo-tool the decision calls to stop (never a real tool; a catalog tool of that name is not offered). */
export const FINALIZE_TOOL = 'Finalize';

/** Its OpenAI function definition; the arguments are validated with the contracts' `FinalizeArgs`. */
export const FINALIZE_DEFINITION: ToolDefinition = {
  name: FINALIZE_TOOL,
  description:
    'Stop pursuing the goal and answer the user. Call it when the answer is already in the context or the goal is ' +
    'achieved (success), when the goal cannot be achieved (failed), or when its prerequisites cannot be met now ' +
    '(incomplete, naming the gaps).',
  parameters: {
    type: 'object',
    properties: {
      status: {
        type: 'string',
        enum: ['success', 'failed', 'incomplete'],
        description: 'success: done or answered; failed: impossible; incomplete: prerequisites missing',
      },
      response: {
        type: 'string',
        description:
          "The answer for the user, in the user's language: factual, structured, grounded only in the resource " +
          'segments and the executed steps; invent nothing.',
      },
      evidence: {
        type: 'array',
        items: { type: 'string' },
        description:
          'Facts from the segments (cite them as "segment #n") or step results that support the response',
      },
      gaps: {
        type: 'array',
        items: { type: 'string' },
        description: 'What is missing or could not be done',
      },
    },
    required: ['status', 'response', 'evidence', 'gaps'],
    additionalProperties: false,
  },
};
