// The assistant's three prompts: thinkPrompt (plan and next action), callToolInputsPrompt (one task's tool input,
// validated against the tool's schema and repaired with the model) and outputContentPrompt (the answer).
import { type ChatMessage, type SchematicTool, type ToolCallReply, paramProblem } from '@novelrag/agenturn';
import { AssistantFollowUp, AssistantThought } from '@novelrag/contracts';
import { contentDirective, interactionDirective } from '@novelrag/llm';
import { type ModelCalls, definitionOf } from '../../loop';
import { type AnswerStream, streamAnswer } from '../answer-stream';
import type { ResultView } from './assistant-state';

/** What every prompt shows of the conversation. */
export interface PromptScene {
  readonly request: string;
  readonly history: string;
  readonly beliefs: readonly string[];
  readonly sessionSummary: string | null;
  readonly memories: readonly string[];
  readonly results: readonly ResultView[];
}

export interface ThinkInput extends PromptScene {
  readonly plan: readonly string[];
  readonly round: number;
  readonly maxRounds: number;
  readonly tools: readonly SchematicTool[];
}

export interface OutputInput extends PromptScene {
  readonly instruction: string;
  readonly forced: boolean;
}

/** A task's input, or why the model never produced a valid one. */
export type ToolInputResult =
  | { readonly ok: true; readonly input: Record<string, unknown> }
  | { readonly ok: false; readonly problem: string };

/** Model attempts at one tool input, the first included: an invalid input goes back with the error this often minus one. */
export const TOOL_INPUT_ATTEMPTS = 3;

export class AssistantPrompts {
  constructor(
    private readonly calls: ModelCalls,
    private readonly lang: string | undefined,
    private readonly inputAttempts = TOOL_INPUT_ATTEMPTS,
  ) {}

  think(input: ThinkInput, signal?: AbortSignal): Promise<AssistantThought> {
    return this.calls.structured(
      'assistant_think',
      {
        template: 'assistant_think',
        directive: interactionDirective(),
        instruction: 'Update the plan and decide the next action.',
        variables: {
          ...sceneVariables(input),
          plan: input.plan,
          round: input.round,
          max_rounds: input.maxRounds,
          tools: input.tools.map((t) => ({ name: t.name, description: t.description })),
        },
      },
      AssistantThought,
      'AssistantThought',
      signal,
    );
  }

  /** Writes the answer, streamed: each piece goes out as an answer delta while it is written. */
  answer(input: OutputInput, stream: AnswerStream, signal?: AbortSignal): Promise<string> {
    const messages = this.calls.messages({
      template: 'assistant_output',
      directive: contentDirective(this.lang, input.beliefs),
      instruction: 'Write the answer.',
      variables: { ...sceneVariables(input), instruction: input.instruction, forced: input.forced },
    });
    return streamAnswer(this.calls, 'assistant_output', messages, stream, signal);
  }

  /** After the answer: the suggested next inputs, the refreshed session summary and the facts the user stated. */
  followUp(input: PromptScene, answer: string, signal?: AbortSignal): Promise<AssistantFollowUp> {
    return this.calls.structured(
      'assistant_followup',
      {
        template: 'assistant_followup',
        directive: interactionDirective(),
        instruction: 'Suggest the next inputs and note what to remember.',
        variables: { ...sceneVariables(input), answer },
      },
      AssistantFollowUp,
      'AssistantFollowUp',
      signal,
    );
  }

  /**
   * The input of one call of `tool` for `instruction`: the model calls the tool (the only one offered) and the
   * arguments are checked against its schema; a refused input goes back to the model with the reason, bounded.
   */
  async toolInput(
    tool: SchematicTool,
    instruction: string,
    scene: Pick<PromptScene, 'request' | 'beliefs'>,
    signal?: AbortSignal,
  ): Promise<ToolInputResult> {
    const definition = definitionOf(tool);
    let messages: ChatMessage[] = this.calls.messages({
      template: 'assistant_tool_input',
      directive: contentDirective(this.lang, scene.beliefs),
      instruction: `Call ${tool.name} now.`,
      variables: {
        tool_name: tool.name,
        tool_description: definition.description,
        instruction,
        request: scene.request,
        problem: null,
      },
    });
    let problem = 'no answer';
    for (let attempt = 1; attempt <= this.inputAttempts; attempt += 1) {
      const reply = await this.calls.callTools('assistant_tool_input', messages, [definition], signal);
      const call = reply.toolCalls.find((c) => c.name === tool.name);
      problem =
        call === undefined
          ? `Your answer made no call of ${tool.name}.`
          : (paramProblem(tool.inputSchema, call.arguments) ?? '');
      if (call !== undefined && problem === '') return { ok: true, input: { ...call.arguments } };
      messages = [
        ...messages,
        { role: 'assistant', content: describeReply(reply) },
        {
          role: 'user',
          content: `The input was refused: ${problem}. Call ${tool.name} again with a valid input.`,
        },
      ];
    }
    return { ok: false, problem };
  }
}

function sceneVariables(scene: PromptScene): Record<string, unknown> {
  return {
    request: scene.request,
    history: scene.history,
    beliefs: scene.beliefs,
    session_summary: scene.sessionSummary,
    memories: scene.memories,
    results: scene.results,
  };
}

function describeReply(reply: ToolCallReply): string {
  const calls = reply.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join('; ');
  return calls === '' ? (reply.content ?? '(no tool call)') : `Tool call: ${calls}`;
}
