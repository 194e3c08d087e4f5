// The provider request's parts that do not depend on the call kind: messages, tools and an extra system note.
import { ConfigError, type ChatMessage, type ToolChoice, type ToolDefinition } from '@novelrag/agenturn';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';

export function toProviderMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m) => ({ role: m.role, content: m.content }));
}

function toProviderToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof choice === 'object') return { type: 'function', function: { name: choice.name } };
  return choice;
}

/** Puts an extra system message right after the leading system messages (where the directive and template are). */
export function withSystemNote(
  messages: ChatCompletionMessageParam[],
  note: string,
): ChatCompletionMessageParam[] {
  const at = messages.findIndex((m) => m.role !== 'system');
  const index = at === -1 ? messages.length : at;
  return [...messages.slice(0, index), { role: 'system', content: note }, ...messages.slice(index)];
}

export type RequestBody = Omit<ChatCompletionCreateParamsNonStreaming, 'model' | 'messages'>;

/** The request fields that offer tools, after checking that a forced choice names an offered tool. */
export function toolsBody(tools: readonly ToolDefinition[], toolChoice: ToolChoice): RequestBody {
  if (tools.length === 0) throw new ConfigError('a tool call needs at least one tool');
  if (typeof toolChoice === 'object' && !tools.some((t) => t.name === toolChoice.name)) {
    throw new ConfigError(`toolChoice names "${toolChoice.name}", which is not among the offered tools`);
  }
  return {
    tools: tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: { ...t.parameters } },
    })),
    tool_choice: toProviderToolChoice(toolChoice),
  };
}
