import type { ChatMessage } from '@novelrag/agenturn';

/**
 * The message layout of every planning call: one system message with the language directive and the rendered
 * template, then one short user turn with the fixed instruction ("Assess the progress.", "Decide the next action.").
 * Keeping the variable material in the system message and the user turn fixed is what the prompts are written for.
 */
export function buildMessages(
  directive: string,
  renderedTemplate: string,
  instruction: string,
): ChatMessage[] {
  const system = [directive.trim(), renderedTemplate.trim()].filter((part) => part !== '').join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: instruction.trim() },
  ];
}
